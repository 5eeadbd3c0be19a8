import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { useMe } from "../../api/queries";
import { ErrorMessage, Loading } from "../../components/States";

/** Renders its children for a signed-in user; sends anyone else to /login (and back after). */
export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <Loading label="Checking your session…" />;
  if (me.isError) {
    if (me.error.status === 401) {
      const next = `${location.pathname}${location.search}`;
      return <Navigate to={`/login?next=${encodeURIComponent(next)}`} replace />;
    }
    return <ErrorMessage error={me.error} title="Could not check your session" onRetry={() => void me.refetch()} />;
  }
  return <>{children}</>;
}
