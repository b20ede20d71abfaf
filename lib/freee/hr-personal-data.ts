/**
 * HR personal data in freee人事労務's answers, decided per field from its schema (lib/freee/openapi/freee-responses.json:
 * the employee, its profile / bank account / basic pay / dependent / insurance rules; payroll statements by freee's field names). A read
 * result holding any of these fields is shown only to whom may see it (docs/slack.md, results with HR personal
 * data): never posted in a public channel. docs/slack.md lists each field with the schema it comes from.
 */
export const HR_PERSONAL_FIELDS: Record<"pay" | "address" | "bank" | "family" | "identity", readonly string[]> = {
  // 給与: the basic pay rule, payroll statements, insurance amounts and the standard remuneration they come from.
  pay: [
    "basic_pay_rule", "pay_amount", "basic_pay_amount", "gross_payment_amount", "net_payment_amount", "total_transfer_amount",
    "total_allowance_amount", "total_deduction_amount", "total_taxable_payment_amount", "total_annual_payment_amount", "total_expense_amount",
    "total_attendance_deduction_amount", "board_member_remuneration_amount", "payments", "deductions", "deductions_employer_share",
    "overtime_pays", "standard_monthly_remuneration", "health_insurance_rule", "welfare_pension_insurance_rule", "annual_revenue", "income",
    "annual_remittance_amount", "manual_health_insurance_amount_of_employee_salary", "manual_health_insurance_amount_of_employee_bonus",
    "manual_health_insurance_amount_of_company_salary", "manual_health_insurance_amount_of_company_bonus", "manual_care_insurance_amount_of_employee_salary",
    "manual_care_insurance_amount_of_employee_bonus", "manual_care_insurance_amount_of_company_salary", "manual_care_insurance_amount_of_company_bonus",
    "manual_child_support_fund_amount_of_employee_salary", "manual_child_support_fund_amount_of_employee_bonus",
    "manual_child_support_fund_amount_of_company_salary", "manual_child_support_fund_amount_of_company_bonus",
  ],
  // 住所・連絡先: the profile rule's addresses, postcodes and phone numbers.
  address: [
    "profile_rule", "address", "address_kana", "residential_address", "residential_address_kana", "zipcode1", "zipcode2",
    "residential_zipcode1", "residential_zipcode2", "prefecture_code", "residential_prefecture_code", "phone1", "phone2", "phone3", "email",
  ],
  // 口座: the bank account pay is transferred to.
  bank: ["bank_account_rule", "account_number", "account_name", "account_type", "bank_code", "bank_name", "bank_name_kana", "branch_code", "branch_name", "branch_name_kana"],
  // 家族: dependents and household.
  family: ["dependent_rules", "relationship", "householder", "householder_name", "married", "widow_type", "social_insurance_and_tax_dependent"],
  // マイナンバーに準ずる番号と属性: pension and insurance numbers, birth date, gender, disability.
  identity: ["base_pension_num", "employment_insurance_reference_number", "reference_num", "birth_date", "gender", "disability_type"],
};

const FIELDS: ReadonlySet<string> = new Set(Object.values(HR_PERSONAL_FIELDS).flat());

/** A tool call that reads freee人事労務 (a typed HR tool, or the generic GET on an /hr/ path). */
export function readsHr(tool: string, input: unknown): boolean {
  if (tool.startsWith("freee_hr_")) return true;
  const path = typeof input === "object" && input !== null ? (input as { path?: unknown }).path : undefined;
  return tool.startsWith("freee_api_") && typeof path === "string" && path.startsWith("/hr/");
}

/**
 * The HR personal fields freee's answer holds (at any depth, with a value), sorted. Text that is not JSON (a cut
 * result) cannot be read field by field: it counts as personal, so it is never posted in a public channel.
 */
export function hrPersonalFieldsIn(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return text.trim() === "" ? [] : ["(unparsed)"];
  }
  const found = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    for (const [k, x] of Object.entries(v)) {
      if (FIELDS.has(k) && x !== null && x !== undefined && x !== "") found.add(k);
      walk(x, depth + 1);
    }
  };
  walk(value, 0);
  return [...found].sort();
}

/** An answer shaped like freee人事労務's (an employee, a list of them, or a record of one employee). */
export function looksLikeHr(text: string): boolean {
  return /"(employees?|employee_id|employee_basic_pay_rule|employee_payroll_statements?)"\s*:/.test(text);
}
