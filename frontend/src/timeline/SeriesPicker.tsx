/** "Add a series": search the stored series names, add one (or a `prefix*`) as its own lane. */
import { useId, useMemo, useState } from "react";
import type { KeyboardEvent } from "react";
import { displayUnit } from "./format";
import { searchNames } from "./lanes";
import type { NameCount } from "./lanes";

interface Props {
  names: readonly NameCount[];
  onAdd: (pattern: string) => void;
}

export function SeriesPicker({ names, onAdd }: Props) {
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listId = useId();
  const hits = useMemo(() => (query.trim() ? searchNames(names, query, 30) : []), [names, query]);

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
      const q = query.trim();
      add(q.endsWith("*") ? q : hits[active]?.name ?? q);
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
        placeholder="Add a series (name or prefix*)"
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
              key={h.name}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "tl-picker__active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                add(h.name);
              }}
            >
              <span className="tl-picker__name">{h.name}</span>
              <span className="tl-picker__meta">
                {displayUnit(h.unit) || "–"} · {h.count} series
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
