import { describe, expect, it } from "vitest";
import { DESCRIBERS, uncoveredInput } from "../../lib/preview/describe";
import { FreeeReader } from "../../lib/preview/reader";
import { getTool } from "../../lib/freee/tools/registry";
import { usePreviewFreee } from "./support";

/**
 * "Covered" is per field and honest (issue: the preview must say only what it knows). For every field of each
 * described write tool's input schema — top-level, and each entry's fields of a list — either the preview puts it
 * into words (its text changes when the value changes) or the card shows it raw (uncoveredInput lists it). A field
 * claimed covered whose value the preview ignores fails here.
 */
const f = usePreviewFreee();

const BASE: Record<string, Record<string, unknown>> = {
  freee_hr_update_basic_pay_rule: { year: 2027, month: 1, employee_id: 1, pay_calc_type: "monthly", pay_amount: 300_000 },
  freee_hr_update_work_record: {
    employee_id: 1,
    date: "2026-12-01",
    note: "電車遅延",
    work_record_segments: [{ clock_in_at: "2026-12-01 09:00:00", clock_out_at: "2026-12-01 18:00:00" }],
    break_records: [{ clock_in_at: "2026-12-01 12:00:00", clock_out_at: "2026-12-01 13:00:00" }],
  },
  freee_accounting_create_deal: {
    issue_date: "2026-12-01",
    type: "expense",
    details: [{ account_item_id: 21, tax_code: 136, amount: 5000 }],
    payments: [{ date: "2026-12-01", from_walletable_type: "bank_account", from_walletable_id: 31, amount: 5000 }],
  },
};

type Schema = { type?: string; enum?: unknown[]; properties?: Record<string, Schema>; items?: Schema; description?: string };

/** Two different values a field of this schema may take. */
function twoValues(name: string, schema: Schema): [unknown, unknown] {
  if (schema.enum !== undefined && schema.enum.length >= 2) return [schema.enum[0], schema.enum[1]];
  if (name.endsWith("_at")) return ["2026-12-01 09:00:00", "2026-12-01 10:30:00"];
  if (/date/.test(name)) return ["2026-12-01", "2026-12-02"];
  switch (schema.type) {
    case "integer":
      return [21, 23];
    case "number":
      return [1.5, 2.5];
    case "boolean":
      return [true, false];
    case "array":
      return schema.items?.type === "object" ? [[], [{}]] : [[1], [2]];
    case "object":
      return [{}, { x: 1 }];
    default:
      return ["あいう", "かきく"];
  }
}

/** Every field path of the tool's input: `key`, and `list.0.field` for a list of objects. */
function fields(schema: Schema): Array<{ path: string[]; name: string; schema: Schema }> {
  const out: Array<{ path: string[]; name: string; schema: Schema }> = [];
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (key === "company_id") continue;
    if (prop.type === "array" && prop.items?.type === "object" && prop.items.properties !== undefined) {
      for (const [field, inner] of Object.entries(prop.items.properties)) out.push({ path: [key, "0", field], name: field, schema: inner });
    } else {
      out.push({ path: [key], name: key, schema: prop });
    }
  }
  return out;
}

function withValue(base: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(base);
  if (path.length === 1) {
    copy[path[0]!] = value;
    return copy;
  }
  const [list, index, field] = path as [string, string, string];
  const entries = (Array.isArray(copy[list]) ? copy[list] : [{}]) as Record<string, unknown>[];
  entries[Number(index)] = { ...(entries[Number(index)] ?? {}), [field]: value };
  copy[list] = entries;
  return copy;
}

const said = async (tool: string, input: Record<string, unknown>) => {
  const d = await DESCRIBERS[tool]!(input, new FreeeReader(f.client()));
  // The change table's rows are what the card shows of a write (its summary is the fallback).
  return JSON.stringify([d.summary, d.details, d.changes, d.rows, d.warnings]);
};

describe.each(Object.keys(DESCRIBERS))("%s: every field of its schema is described or shown raw", (tool) => {
  const schema = getTool(tool)!.inputSchema as Schema;
  it.each(fields(schema).map((x) => [x.path.join("."), x] as const))("%s", async (_, field) => {
    const [a, b] = twoValues(field.name, field.schema);
    const inputA = withValue(BASE[tool]!, field.path, a);
    const shownRaw = uncoveredInput(tool, inputA);
    // Shown raw: the field itself, or the whole value it sits in (a list the preview does not describe).
    if (shownRaw !== undefined && field.path.some((_, i) => field.path.slice(0, i + 1).join(".") in shownRaw)) return;
    // Claimed covered: the words must follow the value.
    expect(await said(tool, inputA), `${tool} ${field.path.join(".")} is marked covered, but the preview says the same for ${JSON.stringify(a)} and ${JSON.stringify(b)}`).not.toBe(
      await said(tool, withValue(BASE[tool]!, field.path, b)),
    );
  });
});

describe("a deal's payment names its wallet by type and id", () => {
  const deal = (from_walletable_type: string, from_walletable_id: number) => ({ ...BASE.freee_accounting_create_deal!, payments: [{ date: "2026-12-01", from_walletable_type, from_walletable_id, amount: 5000 }] });

  it("bank account 31 is みずほ銀行 普通; private_account_item 31 is not (its id is an account item's)", async () => {
    const bank = await DESCRIBERS.freee_accounting_create_deal!(deal("bank_account", 31), new FreeeReader(f.client()));
    expect(bank.details).toContain("支払 1: 2026-12-01 銀行口座「みずほ銀行 普通」（ID 31） 5,000円");
    const privateItem = await DESCRIBERS.freee_accounting_create_deal!(deal("private_account_item", 21), new FreeeReader(f.client()));
    expect(privateItem.details).toContain("支払 1: 2026-12-01 プライベート資金「旅費交通費」（ID 21） 5,000円");
    const unknownItem = await DESCRIBERS.freee_accounting_create_deal!(deal("private_account_item", 31), new FreeeReader(f.client()));
    expect(JSON.stringify(unknownItem)).not.toContain("みずほ銀行");
    expect(unknownItem.warnings).toContain("プライベート資金 ID 31 は freee に見つかりません。");
  });

  it("a wallet of another type with the same id is not found (cash 31 does not exist)", async () => {
    const cash = await DESCRIBERS.freee_accounting_create_deal!(deal("wallet", 31), new FreeeReader(f.client()));
    expect(JSON.stringify(cash)).not.toContain("みずほ銀行");
    expect(cash.warnings).toContain("現金 ID 31 は freee に見つかりません。");
  });

  it("a line that names its account by code is not described as an id: the code is shown raw", async () => {
    const input = { ...BASE.freee_accounting_create_deal!, details: [{ account_item_code: "TRAVEL", tax_code: 136, amount: 5000 }] };
    const d = await DESCRIBERS.freee_accounting_create_deal!(input, new FreeeReader(f.client()));
    expect(JSON.stringify(d)).not.toContain("NaN");
    expect(uncoveredInput("freee_accounting_create_deal", input)).toEqual({ "details.0.account_item_code": "TRAVEL" });
  });
});
