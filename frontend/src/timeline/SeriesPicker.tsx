/**
 * "Add a series": search the stored series names, add one (or a `prefix*`) as its own lane;
 * or type an address (`10.0.3.7`, `:5005`) to find any TCP connection, however quiet, and draw
 * it in the connection lanes beside the busiest ones.
 */
import { useId, useMemo, useState } from "react";
import type { KeyboardEvent } from "react";
import { useConnectionSearch } from "./data";
import type { ConnectionRead } from "./data";
import { displayUnit } from "./format";
import { searchNames } from "./lanes";
import type { NameCount } from "./lanes";

interface Props {
  names: readonly NameCount[];
  onAdd: (pattern: string) => void;
  /** Where connections are searched (the incident's or share's API base). */
  apiBase?: string;
  onPin?: (connection: ConnectionRead) => void;
}

type Hit = { kind: "name"; name: string; unit: string; count: number } | { kind: "connection"; connection: ConnectionRead };

export function SeriesPicker({ names, onAdd, apiBase = "", onPin }: Props) {
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listId = useId();
  const connections = useConnectionSearch(apiBase, onPin ? query : "");
  const hits = useMemo<Hit[]>(() => {
    const byName: Hit[] = query.trim() ? searchNames(names, query, 30).map((n) => ({ kind: "name", ...n })) : [];
    const byAddress: Hit[] = (connections.data ?? []).map((c) => ({ kind: "connection", connection: c }));
    return [...byAddress, ...byName];
  }, [names, query, connections.data]);

  const choose = (hit: Hit | undefined, typed: string) => {
    if (hit?.kind === "connection") {
      onPin?.(hit.connection);
      setQuery("");
      setOpen(false);
      setActive(0);
    } else {
      add(typed.endsWith("*") ? typed : hit?.name ?? typed);
    }
  };

  const add = (pattern: string) => {
    if (!pattern) return;
    onAdd(pattern);
    setQuery("");
    setOpen(false);
    setActive(0);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(a + 1, Math.max(0, hits.length - 1)));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setActive((a) => Math.max(0, a - 1));
    } else if (e.key === "Enter") {
      e.preventDefault();
      choose(hits[active], query.trim());
    } else if (e.key === "Escape") {
      setOpen(false);
    }
  };

  return (
    <div className="tl-picker">
      <input
        type="search"
        role="combobox"
        aria-label="Add a series"
        aria-expanded={open && hits.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && hits[active] ? `${listId}-${active}` : undefined}
        placeholder={onPin ? "Add a series (name, prefix*) or find a connection (address)" : "Add a series (name or prefix*)"}
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
      />
      {open && hits.length > 0 && (
        <ul className="tl-picker__list" role="listbox" id={listId} aria-label="Matching series">
          {hits.map((h, i) => (
            <li
              key={h.kind === "name" ? h.name : `c:${h.connection.host ?? ""}|${h.connection.local}|${h.connection.peer}`}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "tl-picker__active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(h, query.trim());
              }}
            >
              {h.kind === "name" ? (
                <>
                  <span className="tl-picker__name">{h.name}</span>
                  <span className="tl-picker__meta">
                    {displayUnit(h.unit) || "–"} · {h.count} series
                  </span>
                </>
              ) : (
                <>
                  <span className="tl-picker__name">
                    {h.connection.local} ⇄ {h.connection.peer}
                  </span>
                  <span className="tl-picker__meta">
                    connection{h.connection.host ? ` on ${h.connection.host}` : ""} · draw in the connection lanes
                  </span>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
