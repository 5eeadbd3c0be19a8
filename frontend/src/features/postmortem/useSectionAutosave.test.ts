import { describe, expect, it } from "vitest";
import type { PostmortemSection } from "../../api/types";
import { ago } from "./Postmortem";
import { recover } from "./useSectionAutosave";

const stored: PostmortemSection = {
  key: "summary",
  title: "Summary",
  text: "stored",
  version: 4,
  updated_by: "li.wei",
  updated_at_ms: 0,
};

describe("recover", () => {
  it("restores text typed before the tab closed when nobody saved since", () => {
    expect(recover({ text: "mine", version: 4 }, stored, "admin")).toBe("restore");
  });
  it("has nothing to do when the server has the text", () => {
    expect(recover(null, stored, "admin")).toBe("none");
    expect(recover({ text: "stored", version: 3 }, stored, "admin")).toBe("none");
  });
  it("restores over our own later save, and is a conflict over someone else's", () => {
    expect(recover({ text: "mine", version: 3 }, stored, "li.wei")).toBe("restore");
    expect(recover({ text: "mine", version: 3 }, stored, "admin")).toBe("conflict");
  });
});

describe("ago", () => {
  it("says how long ago in words", () => {
    expect(ago(0, 10_000)).toBe("just now");
    expect(ago(0, 2 * 60_000)).toBe("2 min ago");
    expect(ago(0, 3 * 3_600_000)).toBe("3 h ago");
    expect(ago(0, 2 * 86_400_000)).toBe("2 d ago");
  });
});
