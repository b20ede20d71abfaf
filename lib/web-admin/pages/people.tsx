import type { Child } from "hono/jsx";
import { WebAdminMessages } from "../../core/messages/ja";
import type { People } from "../people";

/**
 * An approver field: a `<select multiple>` of the workspace's members (and user groups, where the field takes
 * them), the chosen ids selected — an id no longer in the list (a member deactivated, a group deleted) stays as
 * its own selected option, so saving never drops it unseen. When Slack could not list them: the id text field.
 */
export function ApproverPicker(props: { name: string; label: string; chosen: readonly string[]; people: People; groups: boolean; invalid?: Record<string, string>; children?: Child }) {
  const { people, chosen } = props;
  if (people.kind === "typed") {
    return (
      <p>
        <label for={props.name}>{`${props.label}（${props.groups ? WebAdminMessages.idsHintWithGroups : WebAdminMessages.idsHint}）`}</label>
        <input type="text" id={props.name} name={props.name} value={chosen.join(", ")} {...(props.invalid ?? {})} />
        {props.children}
      </p>
    );
  }
  const picked = new Set(chosen);
  const listed = new Set([...people.members.map((m) => m.id), ...(props.groups && people.groups !== "unavailable" ? people.groups.map((g) => g.id) : [])]);
  const unlisted = chosen.filter((id) => !listed.has(id));
  return (
    <p>
      <label for={props.name}>{props.label}</label>
      <select multiple id={props.name} name={props.name} size={Math.min(8, Math.max(3, listed.size + unlisted.length))} {...(props.invalid ?? {})}>
        <optgroup label="メンバー">
          {people.members.map((m) => (
            <option value={m.id} selected={picked.has(m.id)}>
              {m.name}
            </option>
          ))}
        </optgroup>
        {props.groups && people.groups !== "unavailable" && people.groups.length > 0 ? (
          <optgroup label="ユーザーグループ">
            {people.groups.map((g) => (
              <option value={g.id} selected={picked.has(g.id)}>
                {g.name}
              </option>
            ))}
          </optgroup>
        ) : null}
        {unlisted.length === 0 ? null : (
          <optgroup label="一覧にない ID">
            {unlisted.map((id) => (
              <option value={id} selected={true}>
                {WebAdminMessages.unlistedId(id)}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      <span class="muted">{WebAdminMessages.pickerHint}</span>
      {props.children}
    </p>
  );
}
