import { recordAnswer } from "./generic-routes";
import { employeeOr404, type Route } from "./routes";
import { monthIndex, nextId, type Employee } from "./state";

/**
 * HR writes to the employees the hand-written routes read (routes.ts keeps them as `Employee`, with a pay rule
 * history): create and update change that list; the answer is built from freee's response schema.
 */

type EmployeeFields = { num?: string; display_name?: string; last_name?: string; first_name?: string; entry_date?: string; birth_date?: string; retire_date?: string | null; pay_calc_type?: Employee["payRules"][0]["pay_calc_type"]; pay_amount?: number };

export const HR_ROUTES: Record<string, Route> = {
  create_employee: (ctx) => {
    const b = ctx.body.employee as EmployeeFields & { entry_date: string };
    const id = nextId();
    const from = monthIndex(Number(b.entry_date.slice(0, 4)), Number(b.entry_date.slice(5, 7)));
    const employee: Employee = {
      id,
      num: b.num ?? String(id),
      display_name: `${b.last_name ?? ""} ${b.first_name ?? ""}`.trim(),
      entry_date: b.entry_date,
      ...(b.birth_date === undefined ? {} : { birth_date: b.birth_date }),
      retire_date: null,
      payRules: b.pay_amount === undefined ? [] : [{ from, pay_calc_type: b.pay_calc_type ?? "monthly", pay_amount: b.pay_amount }],
    };
    ctx.company.employees.push(employee);
    return recordAnswer(ctx.operation, { ...b, ...employee, company_id: ctx.company.id });
  },
  destroy_employee_work_record: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.employee_id);
    if (Array.isArray(e)) return e;
    ctx.company.workRecords.delete(`${e.id}|${ctx.pathParams.date as string}`);
    return [204, null];
  },
  update_employee: (ctx) => {
    const e = employeeOr404(ctx, ctx.pathParams.id);
    if (Array.isArray(e)) return e;
    const b = ctx.body.employee as EmployeeFields;
    const given = Object.fromEntries((["num", "display_name", "entry_date", "birth_date", "retire_date"] as const).filter((k) => b[k] !== undefined).map((k) => [k, b[k]]));
    Object.assign(e, given);
    return recordAnswer(ctx.operation, { ...b, ...e, company_id: ctx.company.id });
  },
};
