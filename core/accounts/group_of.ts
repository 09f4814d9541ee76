/**
 * The group a request is priced and allowed in: its account's. An authenticated key carries its
 * account's group (KeyStore.authenticate, `withAccount`), so this reads it from the key.
 */

export function groupOf(key: { group: string }): string {
  return key.group;
}
