import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect } from "react";
import { createBrowserRouter, Outlet, RouterProvider, useNavigate } from "react-router";
import { ApiError, setUnauthorizedHandler } from "./api/client";
import { ME_KEY } from "./api/queries";
import { AppHeader } from "./features/auth/AppHeader";
import { RequireAuth } from "./features/auth/RequireAuth";
import { AccountPage } from "./pages/AccountPage";
import { ActionsPage } from "./pages/ActionsPage";
import { ComparePage } from "./pages/ComparePage";
import { IncidentPage } from "./pages/IncidentPage";
import { IncidentsPage } from "./pages/IncidentsPage";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { PostmortemPage } from "./pages/PostmortemPage";
import { SharePage } from "./pages/SharePage";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      refetchOnWindowFocus: false,
      // 4xx answers do not get better by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
    },
  },
});

/** Sends the browser to /login (and back afterwards) when a private API call answers 401. */
function UnauthorizedRedirect() {
  const navigate = useNavigate();
  useEffect(() => {
    setUnauthorizedHandler(() => {
      const { pathname, search } = window.location;
      if (pathname.startsWith("/login") || pathname.startsWith("/share/")) return;
      queryClient.removeQueries({ queryKey: ME_KEY });
      void navigate(`/login?next=${encodeURIComponent(pathname + search)}`, { replace: true });
    });
    return () => setUnauthorizedHandler(null);
  }, [navigate]);
  return null;
}

function SignedInLayout() {
  return (
    <RequireAuth>
      <AppHeader />
      <Outlet />
    </RequireAuth>
  );
}

function Root() {
  return (
    <>
      <a href="#main" className="skip-link">Skip to content</a>
      <UnauthorizedRedirect />
      <div id="main">
        <Outlet />
      </div>
    </>
  );
}

const router = createBrowserRouter([
  {
    element: <Root />,
    children: [
      { path: "/login", element: <LoginPage /> },
      { path: "/share/:token", element: <SharePage /> },
      {
        element: <SignedInLayout />,
        children: [
          { path: "/", element: <IncidentsPage /> },
          { path: "/incidents/:id", element: <IncidentPage /> },
          { path: "/incidents/:id/postmortem", element: <PostmortemPage /> },
          { path: "/account", element: <AccountPage /> },
          { path: "/actions", element: <ActionsPage /> },
          { path: "/compare", element: <ComparePage /> },
          { path: "*", element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
