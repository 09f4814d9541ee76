/**
 * References in the operator's pages as names linked to their pages ("alice-prod" →
 * /console/keys/key_…), never bare ids: a page gathers the ids it shows, reads their names in one
 * batch (`nameBook`: keys and accounts ten to a read, channels and models from the registry's
 * memory) and renders each reference with the book. A reference whose record is gone shows its
 * id and "(deleted)".
 */

import type { Gateway } from "../../core/gateway.ts";
import { accountNames, keyNames } from "../../core/console/directory.ts";

export interface NameBook {
  keys: ReadonlyMap<string, string>;
  accounts: ReadonlyMap<string, string>;
  channels: ReadonlyMap<string, string>;
  /** Every catalog model id, disabled ones included. */
  models: ReadonlySet<string>;
}

type Ids = Iterable<string | null | undefined>;

/** The ids of keys and accounts a page shows (channels and models need no list: all are known). */
export interface WantedNames {
  keys?: Ids;
  accounts?: Ids;
}

function present(ids: Ids | undefined): string[] {
  return [...ids ?? []].filter((id): id is string => typeof id === "string" && id !== "");
}

/** The names of the references `wanted`, and of every channel and model. */
export async function nameBook(gateway: Gateway, wanted: WantedNames = {}): Promise<NameBook> {
  const keys = present(wanted.keys);
  const accounts = present(wanted.accounts);
  return {
    keys: keys.length ? await keyNames(gateway.kv, keys) : new Map(),
    accounts: accounts.length ? await accountNames(gateway.kv, accounts) : new Map(),
    channels: new Map(gateway.registry.channels.map((channel) => [channel.id, channel.name])),
    models: new Set(gateway.registry.models.map((model) => model.id)),
  };
}

export const keyHref = (id: string) => `/console/keys/${encodeURIComponent(id)}`;
export const accountHref = (id: string) => `/console/accounts/${encodeURIComponent(id)}`;
export const channelHref = (id: string) => `/console/channels/${encodeURIComponent(id)}`;
export const modelPageHref = (id: string) => `/console/models/${encodeURIComponent(id)}`;
export const requestHref = (id: string) => `/console/requests/${encodeURIComponent(id)}`;
export const taskHref = (id: string) => `/console/tasks/${encodeURIComponent(id)}`;

function None() {
  return <span class="muted">none</span>;
}

/** The id of a record that is gone, said so. */
export function Deleted({ id }: { id: string }) {
  return (
    <>
      <code>{id}</code> <span class="muted">(deleted)</span>
    </>
  );
}

function Named(
  { id, names, href }: {
    id: string | null | undefined;
    names: ReadonlyMap<string, string>;
    href: (id: string) => string;
  },
) {
  if (!id) return <None />;
  const name = names.get(id);
  return name === undefined ? <Deleted id={id} /> : <a href={href(id)}>{name}</a>;
}

export function KeyName({ id, book }: { id: string | null | undefined; book: NameBook }) {
  return <Named id={id} names={book.keys} href={keyHref} />;
}

export function AccountName({ id, book }: { id: string | null | undefined; book: NameBook }) {
  return <Named id={id} names={book.accounts} href={accountHref} />;
}

export function ChannelName({ id, book }: { id: string | null | undefined; book: NameBook }) {
  return <Named id={id} names={book.channels} href={channelHref} />;
}

/** A model of the catalog linked to its page; a name the catalog does not hold, as asked. */
export function ModelName({ id, book }: { id: string | null | undefined; book: NameBook }) {
  if (!id) return <None />;
  if (!book.models.has(id)) {
    return (
      <>
        <code>{id}</code> <span class="muted">(not in the catalog)</span>
      </>
    );
  }
  return (
    <a href={modelPageHref(id)}>
      <code>{id}</code>
    </a>
  );
}

export function RequestLink({ id }: { id: string | null | undefined }) {
  if (!id) return <None />;
  return (
    <a href={requestHref(id)}>
      <code>{id}</code>
    </a>
  );
}

export function TaskLink({ id }: { id: string | null | undefined }) {
  if (!id) return <None />;
  return (
    <a href={taskHref(id)}>
      <code>{id}</code>
    </a>
  );
}

/** A ledger entry's reference: a request's or a task's id linked to its page, others as they are. */
export function LedgerRef({ ref }: { ref: string }) {
  if (/^req_[0-9A-Za-z]+$/.test(ref)) return <RequestLink id={ref} />;
  if (/^task_[0-9A-Za-z]+$/.test(ref)) return <TaskLink id={ref} />;
  return <code>{ref}</code>;
}

/**
 * A key on a member's page: linked to its member page when it is one the member manages (`names`
 * holds only those), else its id as it is: never a link to a page the member may not see.
 */
export function MemberKeyName(
  { id, names }: { id: string | null | undefined; names: ReadonlyMap<string, string> },
) {
  if (!id) return <></>;
  const name = names.get(id);
  return name === undefined
    ? <code>{id}</code>
    : <a href={`/console/account/keys/${encodeURIComponent(id)}`}>{name}</a>;
}
