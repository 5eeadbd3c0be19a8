import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import type { Artifact, Finding } from "../api/types";

export const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

/** A query client whose cache is pre-filled, so components render without a server. */
export function renderWithData(ui: ReactNode, data: [unknown[], unknown][] = []) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } },
  });
  for (const [key, value] of data) client.setQueryData(key, value);
  return { client, ...render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>) };
}

export function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    id: "time_wait_storm",
    title: "TIME_WAIT storm",
    verdict: "confirmed",
    effective_verdict: "confirmed",
    summary: "TIME-WAIT peaked at 11,263 sockets.",
    evidence: [
      {
        summary: "TIME-WAIT peaked at 11,263 sockets on host server",
        observed: 11263,
        threshold: 5000,
        unit: "sockets",
        from_ms: 1_795_247_413_951,
        to_ms: 1_795_247_437_231,
        series: "tcp.state.time-wait",
        labels: {},
        event_kind: null,
        artifact: null,
        host: "server",
        met: true,
        threshold_name: "time_wait_min",
        symptom: "time_wait@host:server",
        corroborates: false,
      },
    ],
    explanation: "Each closed connection stays 60 s in TIME-WAIT.",
    remedies: ["Reuse connections."],
    missing: [],
    parameters: {},
    references: [{ title: "Field report E", url: null, source: "seeds/004" }],
    explained_by: [],
    entity: "host server",
    rules_version: "abc123def456",
    review: null,
    computed_at_ms: 1_795_251_037_645,
    ...overrides,
  };
}

export function artifact(overrides: Partial<Artifact> = {}): Artifact {
  return {
    id: "a1",
    incident_id: "i1",
    parent_id: null,
    filename: "ss.txt",
    sha256: "0".repeat(64),
    size_bytes: 2048,
    host: "web-01",
    kind: "ss",
    requested_kind: null,
    status: "parsed",
    diagnostics: [],
    diagnostics_dropped: 0,
    timezone: null,
    clock_offset_s: 0,
    jvm_start_ms: null,
    anchored: true,
    placed_at_upload: false,
    time_assumptions: [],
    time_start_ms: 1_795_247_413_951,
    time_end_ms: 1_795_247_437_231,
    series_count: 4,
    point_count: 100,
    event_count: 0,
    fact_count: 0,
    uploaded_at_ms: 1,
    parsed_at_ms: 2,
    parse_seconds: 0.01,
    parser_version: "0123456789ab",
    ...overrides,
  };
}
