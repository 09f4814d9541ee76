/**
 * The group a request is priced and allowed in. Today it is the key's own `group`; once keys
 * belong to accounts it becomes the account's group, here and nowhere else.
 */

export function groupOf(key: { group: string }): string {
  return key.group;
}
