import { assertEquals } from "../../helpers/assert.ts";
import {
  AccountName,
  ChannelName,
  KeyName,
  LedgerRef,
  MemberKeyName,
  ModelName,
  type NameBook,
} from "../../../routes/console/name_links.tsx";

const BOOK: NameBook = {
  keys: new Map([["key_a", "alice-prod"]]),
  accounts: new Map([["acct_a", "Acme <Corp>"]]),
  channels: new Map([["ch_1", "primary"]]),
  models: new Set(["gpt/test"]),
};

const html = (element: unknown) => String(element);

Deno.test("name links: a known record is its name linked to its page, escaped", () => {
  assertEquals(
    html(KeyName({ id: "key_a", book: BOOK })),
    '<a href="/console/keys/key_a">alice-prod</a>',
  );
  assertEquals(
    html(AccountName({ id: "acct_a", book: BOOK })),
    '<a href="/console/accounts/acct_a">Acme &lt;Corp&gt;</a>',
  );
  assertEquals(
    html(ChannelName({ id: "ch_1", book: BOOK })),
    '<a href="/console/channels/ch_1">primary</a>',
  );
  assertEquals(
    html(ModelName({ id: "gpt/test", book: BOOK })),
    '<a href="/console/models/gpt%2Ftest"><code>gpt/test</code></a>',
  );
});

Deno.test("name links: a deleted record is its id said so, unlinked; none is 'none'", () => {
  assertEquals(
    html(KeyName({ id: "key_gone", book: BOOK })),
    '<code>key_gone</code> <span class="muted">(deleted)</span>',
  );
  assertEquals(
    html(ChannelName({ id: "ch_gone", book: BOOK })),
    '<code>ch_gone</code> <span class="muted">(deleted)</span>',
  );
  assertEquals(
    html(ModelName({ id: "nope", book: BOOK })),
    '<code>nope</code> <span class="muted">(not in the catalog)</span>',
  );
  assertEquals(html(KeyName({ id: null, book: BOOK })), '<span class="muted">none</span>');
});

Deno.test("name links: a ledger reference links a request or a task, others stay text", () => {
  assertEquals(
    html(LedgerRef({ ref: "req_abc" })),
    '<a href="/console/requests/req_abc"><code>req_abc</code></a>',
  );
  assertEquals(
    html(LedgerRef({ ref: "task_abc" })),
    '<a href="/console/tasks/task_abc"><code>task_abc</code></a>',
  );
  assertEquals(html(LedgerRef({ ref: "rc_abc" })), "<code>rc_abc</code>");
});

Deno.test("name links: a member's key links to its member page only when the member manages it", () => {
  const managed = new Map([["key_a", "mine"]]);
  assertEquals(
    html(MemberKeyName({ id: "key_a", names: managed })),
    '<a href="/console/account/keys/key_a">mine</a>',
  );
  assertEquals(html(MemberKeyName({ id: "key_b", names: managed })), "<code>key_b</code>");
});
