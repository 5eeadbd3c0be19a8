import { Link, NavLink, useNavigate } from "react-router";
import { useLogout, useMe } from "../../api/queries";

export function AppHeader() {
  const me = useMe();
  const logout = useLogout();
  const navigate = useNavigate();
  const user = me.data?.user;
  return (
    <header className="app-header">
      <Link to="/" className="brand">
        Rootline
      </Link>
      <nav aria-label="Main">
        <NavLink to="/" end>
          Incidents
        </NavLink>
        <NavLink to="/actions">Action items</NavLink>
        <NavLink to="/compare">Compare</NavLink>
        {user && <NavLink to="/account">Account</NavLink>}
      </nav>
      <div className="header-user">
        {user && (
          <>
            <span className="user-name" aria-label="Signed in as">
              {user.username}
              {user.is_admin && <span className="muted small"> (admin)</span>}
            </span>
            <button
              type="button"
              className="button-small"
              disabled={logout.isPending}
              onClick={() => logout.mutate(undefined, { onSettled: () => void navigate("/login", { replace: true }) })}
            >
              Sign out
            </button>
          </>
        )}
      </div>
    </header>
  );
}
