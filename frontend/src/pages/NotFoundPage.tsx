import { Link } from "react-router";
import { useDocumentTitle } from "../lib/useDocumentTitle";

export function NotFoundPage() {
  useDocumentTitle("Page not found");
  return (
    <main className="page">
      <h1>Page not found</h1>
      <p><Link to="/">Go to the incidents</Link></p>
    </main>
  );
}
