/**
 * Legend clicks, as in Grafana: a click hides or shows one line, a shift-click shows that line
 * alone (and shift-clicking the only line shown shows them all again). Pure: the hidden set in,
 * the next one out.
 */

export function legendClick(hidden: readonly string[], key: string, allKeys: readonly string[], isolate: boolean): string[] {
  if (isolate) {
    const alone = allKeys.every((k) => k === key || hidden.includes(k)) && !hidden.includes(key);
    return alone ? [] : allKeys.filter((k) => k !== key);
  }
  return hidden.includes(key) ? hidden.filter((k) => k !== key) : [...hidden, key];
}

/** Hidden keys that still name a line of the lane (lines come and go with the host filter). */
export function liveHidden(hidden: readonly string[] | undefined, allKeys: readonly string[]): Set<string> {
  const keys = new Set(allKeys);
  return new Set((hidden ?? []).filter((k) => keys.has(k)));
}
