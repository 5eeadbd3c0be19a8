/**
 * Dev harness for the timeline alone (not part of the app): open
 * /src/timeline/dev/index.html?incident=<id>[&from=&to=&host=&hl=<series>&hlfrom=&hlto=&ro=1]
 * on the Vite dev server (ROOTLINE_API=http://127.0.0.1:8731 npx vite). State lives in the URL.
 */
import { QueryClient, QueryClientProvider, useQuery, useQueryClient } from "@tanstack/react-query";
import { StrictMode, useCallback, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { apiGet, request } from "../../api/client";
import type { Schemas } from "../../api/client";
import Timeline from "../Timeline";
import type { SeriesHighlight, TimeRange } from "../types";

function readUrl() {
  const q = new URLSearchParams(location.search);
  const num = (k: string) => (q.get(k) ? Number(q.get(k)) : null);
  const from = num("from");
  const to = num("to");
  return {
    incident: q.get("incident") ?? "",
    range: from !== null && to !== null ? { from, to } : null,
    host: q.get("host"),
    hl: q.get("hl"),
    hlLabels: q.get("hllabels"),
    hlfrom: num("hlfrom"),
    hlto: num("hlto"),
    ro: q.get("ro") === "1",
  };
}

function writeUrl(patch: Record<string, string | null>) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) q.delete(k);
    else q.set(k, v);
  }
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

function Harness() {
  const [url, setUrl] = useState(readUrl);
  const queryClient = useQueryClient();
  const apiBase = `/api/incidents/${url.incident}`;
  const incident = useQuery({
    queryKey: [apiBase, "incident"],
    queryFn: () => apiGet<Schemas["IncidentRead"]>(apiBase),
    enabled: !!url.incident,
  });
  const incidents = useQuery({
    queryKey: ["incidents"],
    queryFn: () => apiGet<Schemas["IncidentPage"]>("/api/incidents"),
    enabled: !url.incident,
  });
  useEffect(() => {
    const onPop = () => setUrl(readUrl());
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  const onRangeChange = useCallback((r: TimeRange | null) => {
    writeUrl({ from: r ? String(r.from) : null, to: r ? String(r.to) : null });
    setUrl(readUrl());
  }, []);
  const onHostChange = useCallback((h: string | null) => {
    writeUrl({ host: h });
    setUrl(readUrl());
  }, []);
  const onAnnotate = useCallback(
    async (r: TimeRange) => {
      const text = window.prompt("Annotation text");
      if (!text) return;
      await request("POST", `${apiBase}/annotations`, { json: { text, from_ms: r.from, to_ms: r.to } });
      await queryClient.invalidateQueries({ queryKey: [apiBase, "annotations"] });
    },
    [apiBase, queryClient],
  );
  if (!url.incident) {
    return (
      <ul>
        {incidents.data?.items.map((i) => (
          <li key={i.id}>
            <a href={`?incident=${i.id}`}>{i.title}</a>
          </li>
        ))}
      </ul>
    );
  }
  if (!incident.data) return <p>{incident.isError ? String(incident.error) : "Loading incident…"}</p>;
  const i = incident.data;
  const window_ = i.window_start_ms !== null && i.window_end_ms !== null ? { from: i.window_start_ms, to: i.window_end_ms } : null;
  const highlight: SeriesHighlight | null = url.hl
    ? { series: url.hl, labels: url.hlLabels ? JSON.parse(url.hlLabels) : {}, from_ms: url.hlfrom, to_ms: url.hlto }
    : null;
  return (
    <div className="dev">
      <h1 style={{ font: "600 16px system-ui", margin: "8px" }}>{i.title}</h1>
      <Timeline
        apiBase={apiBase}
        timezone={i.timezone}
        window={window_}
        range={url.range}
        onRangeChange={onRangeChange}
        host={url.host}
        onHostChange={onHostChange}
        highlight={highlight}
        readOnly={url.ro}
        onAnnotate={url.ro ? undefined : onAnnotate}
      />
    </div>
  );
}

const client = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <Harness />
    </QueryClientProvider>
  </StrictMode>,
);
