/** Loading, empty and error states, the same everywhere. */
import type { ReactNode } from "react";
import { errorMessage } from "../api/client";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function ErrorMessage({
  error,
  title,
  onRetry,
}: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
}) {
  return (
    <div className="state state-error" role="alert">
      {title && <strong>{title}: </strong>}
      <span>{errorMessage(error)}</span>
      {onRetry && (
        <button type="button" className="button-link" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state state-empty">{children}</p>;
}
