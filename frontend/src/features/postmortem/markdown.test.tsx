import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { Markdown, parseBlocks, parseInline, safeHref, splitRow } from "./markdown";

describe("parseBlocks", () => {
  it("reads what the draft writes: headings, paragraphs, lists, tables", () => {
    const blocks = parseBlocks(
      "### Cause\n\nOne line\nand more.\n\n- a\n- b\n  continued\n\n| Time | What |\n| --- | --- |\n| 1 | x \\| y |\n",
    );
    expect(blocks).toEqual([
      { kind: "heading", level: 3, text: "Cause" },
      { kind: "paragraph", text: "One line\nand more." },
      { kind: "list", ordered: false, items: ["a", "b continued"] },
      { kind: "table", header: ["Time", "What"], rows: [["1", "x \\| y"]] },
    ]);
  });

  it("keeps code fences verbatim", () => {
    expect(parseBlocks("```\n<b>x</b>\n# no heading\n```")).toEqual([{ kind: "code", text: "<b>x</b>\n# no heading" }]);
  });

  it("splits table rows on unescaped pipes", () => {
    expect(splitRow("| a | b \\| c |")).toEqual(["a", "b \\| c"]);
  });
});

describe("parseInline", () => {
  it("reads emphasis, code, escapes, and leaves words with underscores alone", () => {
    expect(parseInline("**met:** rwnd_limited \\*x\\* `a*b`")).toEqual([
      { kind: "strong", children: [{ kind: "text", text: "met:" }] },
      { kind: "text", text: " rwnd_limited *x* " },
      { kind: "code", text: "a*b" },
    ]);
    expect(parseInline("_What went well_")).toEqual([{ kind: "em", children: [{ kind: "text", text: "What went well" }] }]);
  });

  it("makes chart references and links", () => {
    expect(parseInline("![The cause: on \\[x\\]](chart:small_send_buffer)")).toEqual([
      { kind: "chart", id: "small_send_buffer", caption: "The cause: on [x]" },
    ]);
    expect(parseInline("[a](javascript:alert(1))")[0]).toMatchObject({ kind: "link", href: null });
  });

  it("keeps only safe link targets", () => {
    expect(safeHref("https://example.org/x")).toBe("https://example.org/x");
    expect(safeHref("/incidents/1")).toBe("/incidents/1");
    expect(safeHref("JavaScript:alert(1)")).toBeNull();
    expect(safeHref("data:text/html,x")).toBeNull();
    expect(safeHref("//evil.example")).toBeNull();
  });
});

describe("Markdown", () => {
  it("renders markup as text, never as HTML", () => {
    const { container } = render(<Markdown text={'<img src=x onerror="alert(1)"> <script>x</script> [bad](javascript:alert(1))'} />);
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("a")).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror="alert(1)"> <script>x</script> bad');
  });

  it("draws a chart reference as the chart's image, with its caption", () => {
    render(<Markdown text="![Send-Q on the sender](chart:small_send_buffer)" chartUrl={(id) => `/charts/${id}.svg`} />);
    const image = screen.getByRole("img", { name: "Send-Q on the sender" });
    expect(image.getAttribute("src")).toBe("/charts/small_send_buffer.svg");
    expect(screen.getByText("Send-Q on the sender", { selector: "figcaption" })).toBeTruthy();
  });

  it("renders tables with headers and headings below the section's own", () => {
    render(<Markdown text={"# Top\n\n| Time | What |\n| --- | --- |\n| 05:55 | **starts** |"} />);
    expect(screen.getByRole("heading", { level: 3, name: "Top" })).toBeTruthy();
    expect(screen.getByRole("columnheader", { name: "What" })).toBeTruthy();
    expect(screen.getByRole("cell", { name: "starts" }).querySelector("strong")).toBeTruthy();
  });
});
