import { useEffect } from "react";

export const APP_NAME = "Rootline";

/** The tab's title: `what · Rootline` (just `Rootline` while there is nothing to name), restored on leaving. */
export function useDocumentTitle(what: string | null | undefined): void {
  useEffect(() => {
    const previous = document.title;
    document.title = what ? `${what} · ${APP_NAME}` : APP_NAME;
    return () => {
      document.title = previous;
    };
  }, [what]);
}
