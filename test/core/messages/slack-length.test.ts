import { describe, expect, it } from "vitest";
import { cutToSlackLength, slackLength } from "../../../lib/core/messages/mrkdwn";
import { chunk, SECTION_MAX } from "../../../lib/preview/plan";
import { section, truncate } from "../../../lib/ingress/cards/blocks";

/**
 * Card text is measured in UTF-16 code units (docs/slack.md "Text limits"): never fewer than Slack's
 * characters, so CJK- and emoji-heavy plans stay within the 3,000-character section limit, and no cut leaves
 * half of a surrogate pair (which Slack would reject as invalid text or show as �).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const EMOJI = "🧾"; // outside the BMP: two UTF-16 units, one code point
const CJK = "山田太郎の基本給を更新";

describe("the unit Slack counts", () => {
  it("an emoji counts two units, a CJK character one (never below the code point count)", () => {
    expect(slackLength(EMOJI)).toBe(2);
    expect(slackLength(CJK)).toBe(CJK.length);
    for (const s of [EMOJI.repeat(5), `${CJK}${EMOJI}`, "a👨‍👩‍👧b"]) expect(slackLength(s)).toBeGreaterThanOrEqual([...s].length);
  });

  it("a cut never ends inside a surrogate pair", () => {
    const text = `a${EMOJI.repeat(10)}`;
    for (let max = 0; max <= slackLength(text); max++) {
      const cut = cutToSlackLength(text, max);
      expect(slackLength(cut)).toBeLessThanOrEqual(max);
      expect(cut).not.toMatch(LONE_SURROGATE);
      expect(text.startsWith(cut)).toBe(true);
    }
  });
});

describe("plans at the limit", () => {
  it("an emoji-only line longer than a section splits into sections within SECTION_MAX, pairs intact, nothing lost", () => {
    // An odd offset puts every SECTION_MAX boundary inside a pair.
    const line = `x${EMOJI.repeat(SECTION_MAX)}`;
    const pieces = chunk(line);
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) {
      expect(slackLength(p)).toBeLessThanOrEqual(SECTION_MAX);
      expect(p).not.toMatch(LONE_SURROGATE);
    }
    expect(pieces.join("")).toBe(line);
  });

  it("a CJK- and emoji-heavy plan of many lines: each section within the limit, lines kept whole where they fit", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `• 明細 ${i + 1}: ${CJK}${EMOJI} 5,000円`);
    const pieces = chunk(lines.join("\n"));
    for (const p of pieces) expect(slackLength(p)).toBeLessThanOrEqual(SECTION_MAX);
    expect(pieces.join("\n")).toBe(lines.join("\n"));
    // Measured by code points the same text would have packed more per section, and overflowed in units.
    expect(pieces.some((p) => slackLength(p) > SECTION_MAX - 40)).toBe(true);
  });

  it("a card section cut at the limit keeps emoji whole and stays within 3,000 units", () => {
    const block = section(`${CJK}${EMOJI.repeat(2000)}`) as { text: { text: string } };
    expect(slackLength(block.text.text)).toBeLessThanOrEqual(3000);
    expect(block.text.text).not.toMatch(LONE_SURROGATE);
    expect(block.text.text.endsWith("…")).toBe(true);
    for (let max = 2; max < 12; max++) expect(truncate(`a${EMOJI.repeat(10)}`, max)).not.toMatch(LONE_SURROGATE);
  });
});
