/**
 * The postmortem's Markdown as React elements: never as HTML. Raw markup shows as the text it
 * is, links keep only http(s), mailto and same-site targets, and `![caption](chart:<id>)`
 * draws that finding's evidence chart (an <img> of the API's SVG). The subset is what the
 * draft writes and a team types: headings, paragraphs, lists, pipe tables, code, quotes,
 * **strong**, *emphasis*, `code`, links and backslash escapes (the exports render the same
 * text with markdown-it on the server).
 */
import type { ReactNode } from "react";

export type Block =
  | { kind: "heading"; level: number; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; ordered: boolean; items: string[] }
  | { kind: "table"; header: string[]; rows: string[][] }
  | { kind: "code"; text: string }
  | { kind: "quote"; text: string };

const LIST_ITEM = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** A pipe table row's cells (`\|` stays inside its cell). */
export function splitRow(line: string): string[] {
  let body = line.trim();
  if (body.startsWith("|")) body = body.slice(1);
  if (body.endsWith("|") && !body.endsWith("\\|")) body = body.slice(0, -1);
  const cells: string[] = [];
  let current = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\" && body[i + 1] === "|") {
      current += "\\|";
      i++;
    } else if (c === "|") {
      cells.push(current.trim());
      current = "";
    } else current += c;
  }
  cells.push(current.trim());
  return cells;
}

/** Markdown text as blocks. */
export function parseBlocks(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let i = 0;
  const blank = (line: string | undefined) => line === undefined || line.trim() === "";
  while (i < lines.length) {
    const line = lines[i]!;
    if (blank(line)) {
      i++;
      continue;
    }
    const fence = /^\s{0,3}(```|~~~)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      blocks.push({ kind: "code", text: body.join("\n") });
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      blocks.push({ kind: "heading", level: heading[1]!.length, text: heading[2]! });
      i++;
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]!)) {
      const header = splitRow(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && !blank(lines[i]) && lines[i]!.includes("|")) rows.push(splitRow(lines[i++]!));
      blocks.push({ kind: "table", header, rows });
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^\s{0,3}>\s?/, ""));
      blocks.push({ kind: "quote", text: body.join("\n") });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[1]!);
      const items: string[] = [item[2]!];
      i++;
      while (i < lines.length) {
        const next = lines[i]!;
        const another = LIST_ITEM.exec(next);
        if (another && /\d/.test(another[1]!) === ordered && !/^\s{4,}/.test(next)) {
          items.push(another[2]!);
        } else if (!blank(next) && /^\s+/.test(next)) {
          items[items.length - 1] += ` ${next.trim()}`; // a continuation line
        } else if (blank(next) && LIST_ITEM.exec(lines[i + 1] ?? "")) {
          // a loose list: a blank line between items
        } else break;
        i++;
      }
      blocks.push({ kind: "list", ordered, items });
      continue;
    }
    const body: string[] = [line];
    i++;
    while (
      i < lines.length &&
      !blank(lines[i]) &&
      !/^\s{0,3}(#{1,6}\s|```|~~~|>)/.test(lines[i]!) &&
      !LIST_ITEM.test(lines[i]!)
    ) {
      body.push(lines[i++]!);
    }
    blocks.push({ kind: "paragraph", text: body.join("\n") });
  }
  return blocks;
}

/** A link target the page may follow: http(s), mailto, or this site (no javascript:, data: ...). */
export function safeHref(url: string): string | null {
  const target = url.trim();
  if (/^(https?:|mailto:)/i.test(target)) return target;
  if (/^[#/.]/.test(target) && !target.startsWith("//")) return target;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("//")) return target;
  return null;
}

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong" | "em"; children: Inline[] }
  | { kind: "link"; href: string | null; children: Inline[] }
  | { kind: "chart"; id: string; caption: string }
  | { kind: "image"; src: string; alt: string }
  | { kind: "break" };

const ESCAPABLE = "\\`*_{}[]()#+-.!|<>~";

/** The index of the `]` closing the bracket opened just before `start`, or -1. */
function closingBracket(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") depth++;
    else if (c === "]") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Plain text of inline Markdown (for an image's alt text). */
export function plainText(nodes: Inline[]): string {
  return nodes
    .map((node) => {
      if (node.kind === "text" || node.kind === "code") return node.text;
      if (node.kind === "strong" || node.kind === "em" || node.kind === "link") return plainText(node.children);
      if (node.kind === "chart") return node.caption;
      if (node.kind === "image") return node.alt;
      return " ";
    })
    .join("");
}

/** Inline Markdown as nodes. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let buffer = "";
  const flush = () => {
    if (buffer) out.push({ kind: "text", text: buffer });
    buffer = "";
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length && ESCAPABLE.includes(text[i + 1]!)) {
      buffer += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "\n") {
      flush();
      out.push({ kind: "break" });
      i++;
      continue;
    }
    if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i) {
        flush();
        out.push({ kind: "code", text: text.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    const image = c === "!" && text[i + 1] === "[";
    if (c === "[" || image) {
      const open = i + (image ? 2 : 1);
      const close = closingBracket(text, open);
      if (close > 0 && text[close + 1] === "(") {
        const end = text.indexOf(")", close + 2);
        if (end > 0) {
          const label = text.slice(open, close);
          const url = text.slice(close + 2, end).trim();
          flush();
          if (image) {
            const alt = plainText(parseInline(label));
            const chart = /^chart:([a-z0-9_]+)$/.exec(url);
            if (chart) out.push({ kind: "chart", id: chart[1]!, caption: alt });
            else out.push({ kind: "image", src: url, alt });
          } else {
            out.push({ kind: "link", href: safeHref(url), children: parseInline(label) });
          }
          i = end + 1;
          continue;
        }
      }
    }
    if (c === "*" || c === "_") {
      const strong = text[i + 1] === c;
      const marker = strong ? c + c : c;
      const before = i > 0 ? text[i - 1]! : " ";
      // `_` opens only at a word's start (rwnd_limited is a word); `*` anywhere but before a space.
      const opens = text[i + marker.length] !== undefined && !/\s/.test(text[i + marker.length]!) &&
        (c === "*" || !/\w/.test(before));
      if (opens) {
        let end = text.indexOf(marker, i + marker.length);
        while (end > 0 && (text[end - 1] === "\\" || /\s/.test(text[end - 1]!) || (c === "_" && /\w/.test(text[end + marker.length] ?? "")))) {
          end = text.indexOf(marker, end + 1);
        }
        if (end > i + marker.length) {
          flush();
          out.push({ kind: strong ? "strong" : "em", children: parseInline(text.slice(i + marker.length, end)) });
          i = end + marker.length;
          continue;
        }
      }
    }
    buffer += c;
    i++;
  }
  flush();
  return out;
}

export interface MarkdownProps {
  text: string;
  /** The URL of a finding's evidence chart (SVG); charts show as their caption without it. */
  chartUrl?: (findingId: string) => string;
  /** The level of the heading above the text (its own headings go below it). */
  headingLevel?: number;
}

function renderInline(nodes: Inline[], props: MarkdownProps, keyPrefix: string): ReactNode[] {
  return nodes.map((node, index) => {
    const key = `${keyPrefix}.${index}`;
    switch (node.kind) {
      case "text":
        return node.text;
      case "code":
        return <code key={key}>{node.text}</code>;
      case "strong":
        return <strong key={key}>{renderInline(node.children, props, key)}</strong>;
      case "em":
        return <em key={key}>{renderInline(node.children, props, key)}</em>;
      case "break":
        return <br key={key} />;
      case "link":
        return node.href ? (
          <a key={key} href={node.href} rel="noopener noreferrer nofollow" target={node.href.startsWith("#") ? undefined : "_blank"}>
            {renderInline(node.children, props, key)}
          </a>
        ) : (
          <span key={key}>{renderInline(node.children, props, key)}</span>
        );
      case "chart":
        return props.chartUrl ? (
          <figure key={key} className="pm-chart" data-chart={node.id}>
            <img src={props.chartUrl(node.id)} alt={node.caption || `Evidence chart of ${node.id}`} loading="lazy" />
            {node.caption && <figcaption>{node.caption}</figcaption>}
          </figure>
        ) : (
          <span key={key} className="muted">[chart: {node.caption}]</span>
        );
      case "image": {
        // Images from elsewhere are not fetched (a reader's address would leak to that site).
        const href = safeHref(node.src);
        return href ? (
          <a key={key} href={href} rel="noopener noreferrer nofollow" target="_blank">
            {node.alt || node.src}
          </a>
        ) : (
          <span key={key}>{node.alt}</span>
        );
      }
    }
  });
}

/** Markdown as React elements (see the module comment for what is kept). */
export function Markdown(props: MarkdownProps) {
  const blocks = parseBlocks(props.text);
  return (
    <div className="markdown">
      {blocks.map((block, index) => {
        const key = String(index);
        switch (block.kind) {
          case "heading": {
            // Headings in the text go below the section's own heading (an h2 by default).
            const below = (props.headingLevel ?? 2) + 1;
            const level = Math.min(6, below + Math.max(0, block.level - 3));
            const Tag = `h${level}` as "h3" | "h4" | "h5" | "h6";
            return <Tag key={key}>{renderInline(parseInline(block.text), props, key)}</Tag>;
          }
          case "paragraph": {
            const nodes = parseInline(block.text);
            // A figure may not sit in a <p>: a paragraph with a chart is a <div>.
            return nodes.some((node) => node.kind === "chart") ? (
              <div key={key} className="markdown-figures">{renderInline(nodes, props, key)}</div>
            ) : (
              <p key={key}>{renderInline(nodes, props, key)}</p>
            );
          }
          case "list": {
            const items = block.items.map((item, n) => <li key={n}>{renderInline(parseInline(item), props, `${key}.${n}`)}</li>);
            return block.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
          }
          case "table":
            return (
              <div key={key} className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      {block.header.map((cell, n) => (
                        <th key={n}>{renderInline(parseInline(cell), props, `${key}.h${n}`)}</th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {block.rows.map((row, r) => (
                      <tr key={r}>
                        {block.header.map((_, n) => (
                          <td key={n}>{renderInline(parseInline(row[n] ?? ""), props, `${key}.${r}.${n}`)}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            );
          case "code":
            return (
              <pre key={key}>
                <code>{block.text}</code>
              </pre>
            );
          case "quote":
            return <blockquote key={key}>{renderInline(parseInline(block.text), props, key)}</blockquote>;
        }
      })}
    </div>
  );
}
