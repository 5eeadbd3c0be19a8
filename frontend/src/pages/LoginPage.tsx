import { useState } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { useLogin, useMe } from "../api/queries";
import { ErrorMessage } from "../components/States";
import { useDocumentTitle } from "../lib/useDocumentTitle";
import { safeNextPath } from "../lib/urlState";

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNextPath(params.get("next"));
  const me = useMe();
  const login = useLogin();
  const navigate = useNavigate();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  // The server sends a browser here when a one-time sign-in link is unknown, used or expired.
  const badLink = params.get("link") === "invalid";
  useDocumentTitle(badLink ? "Sign-in link not valid" : "Sign in");

  if (me.data) return <Navigate to={next} replace />;

  return (
    <main className="page page-narrow">
      <div className="login-card panel">
        {badLink && (
          <div className="state state-error" role="alert">
            <h1>This sign-in link does not work</h1>
            <p>
              It has been used already, has expired (links last 24 hours) or is mistyped. Ask an admin for a new one, or
              sign in with your password.
            </p>
          </div>
        )}
        {badLink ? <h2>Sign in to Rootline</h2> : <h1>Sign in to Rootline</h1>}
        <form
          className="stacked-form"
          onSubmit={(event) => {
            event.preventDefault();
            login.mutate({ username: username.trim(), password }, { onSuccess: () => void navigate(next, { replace: true }) });
          }}
        >
          <label htmlFor="login-username">Username</label>
          <input
            id="login-username"
            name="username"
            autoComplete="username"
            required
            autoFocus
            value={username}
            onChange={(event) => setUsername(event.target.value)}
          />
          <label htmlFor="login-password">Password</label>
          <input
            id="login-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          {login.isError && <ErrorMessage error={login.error} />}
          <button type="submit" className="button-primary" disabled={login.isPending}>
            {login.isPending ? "Signing in…" : "Sign in"}
          </button>
        </form>
        <p className="hint">
          No password yet? Ask an admin for a one-time sign-in link (<span className="mono">rootline users link NAME</span>).
        </p>
      </div>
    </main>
  );
}
