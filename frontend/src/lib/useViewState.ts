import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import { formatViewState, parseViewState, type ViewState } from "./urlState";

/** The page's view (range, host, finding, evidence) read from and written to the query string. */
export function useViewState(): [ViewState, (changes: Partial<ViewState>, options?: { replace?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  const view = useMemo(() => parseViewState(params), [params]);
  const setView = useCallback(
    (changes: Partial<ViewState>, options?: { replace?: boolean }) => {
      setParams(
        (current) => formatViewState({ ...parseViewState(current), ...changes }, current),
        { replace: options?.replace ?? false },
      );
    },
    [setParams],
  );
  return [view, setView];
}
