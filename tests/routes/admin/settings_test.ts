/**
 * The money setting over HTTP: GET /admin/settings/money answers the process's defaults
 * (GATEWAY_CURRENCY, GATEWAY_MONEY_DECIMALS) until PATCH sets it; PATCH changes either field,
 * is audited with its before and after, and refuses a bad currency or precision with 400 in the
 * admin envelope, changing nothing. Bad defaults stop the process at start.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertAdminError } from "../../helpers/admin_error.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { readSettings } from "../../../core/settings.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "admin settings: the money format is read, changed field by field and audited; the defaults come from the environment",
  serverTest,
  async () => {
    await using gw = await startTestGateway({
      GATEWAY_CURRENCY: "CNY",
      GATEWAY_MONEY_DECIMALS: "4",
    });
    const initial = await gw.admin("GET", "/admin/settings/money");
    assertEquals(initial.status, 200);
    assertEquals(initial.body, {
      currency: "CNY",
      decimals: 4,
      source: "default",
      updated_at: null,
    });

    const changed = await gw.admin("PATCH", "/admin/settings/money", { currency: "EUR" });
    assertEquals(changed.status, 200, JSON.stringify(changed.body));
    assertEquals([changed.body.currency, changed.body.decimals, changed.body.source], [
      "EUR",
      4,
      "setting",
    ]);
    const precision = await gw.admin("PATCH", "/admin/settings/money", { decimals: 2 });
    assertEquals([precision.body.currency, precision.body.decimals], ["EUR", 2]);
    const read = (await gw.admin("GET", "/admin/settings/money")).body;
    assertEquals([read.currency, read.decimals, read.source], ["EUR", 2, "setting"]);
    assertOk(typeof read.updated_at === "string", "when it was set");

    const audit = (await gw.admin("GET", "/admin/audit?target_kind=setting")).body.data as Json[];
    assertEquals(audit.map((record) => `${record.method} ${record.route} ${record.status}`), [
      "PATCH /admin/settings/money 200",
      "PATCH /admin/settings/money 200",
    ]);
    const first = audit.at(-1);
    assertEquals(first.target, { kind: "setting", id: "money" });
    assertEquals(first.actor, "admin_token");
    assertEquals([first.before.currency, first.before.source], ["CNY", "default"]);
    assertEquals([first.after.currency, first.after.decimals], ["EUR", 4]);
  },
);

Deno.test(
  "admin settings: a bad currency or precision is 400 naming the field, and changes nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const bad: Array<[unknown, string]> = [
      [{ currency: "usd" }, "currency"],
      [{ currency: "XYZ" }, "currency"],
      [{ currency: "US" }, "currency"],
      [{ currency: "" }, "currency"],
      [{ currency: 840 }, "currency"],
      [{ decimals: 1 }, "decimals"],
      [{ decimals: 7 }, "decimals"],
      [{ decimals: 2.5 }, "decimals"],
      [{ decimals: "2" }, "decimals"],
      [{ decimals: null }, "decimals"],
      [{ currency: "EUR", symbol: "€" }, "symbol"],
    ];
    for (const [body, field] of bad) {
      const answer = await gw.admin("PATCH", "/admin/settings/money", body);
      assertAdminError(answer, 400, "invalid_request");
      assertOk(answer.body.error.message.includes(field), answer.body.error.message);
    }
    assertAdminError(
      await gw.admin("PATCH", "/admin/settings/money", "[]"),
      400,
      "invalid_request",
    );
    const unchanged = (await gw.admin("GET", "/admin/settings/money")).body;
    assertEquals(unchanged, { currency: "USD", decimals: 6, source: "default", updated_at: null });
    const refused = (await gw.admin("GET", "/admin/audit?target_kind=setting")).body.data as Json[];
    assertOk(refused.every((record) => record.status === 400), "only refusals are recorded");
  },
);

Deno.test("settings: a bad GATEWAY_CURRENCY or GATEWAY_MONEY_DECIMALS stops the start", () => {
  const settingsWith = (env: Record<string, string>) => () =>
    readSettings((name) => ({ PORT: "0", ...env })[name]);
  const refusal = (env: Record<string, string>) => {
    try {
      settingsWith(env)();
    } catch (error) {
      return String(error);
    }
    return "started";
  };
  for (const currency of ["dollars", "XYZ", "usd"]) {
    assertOk(refusal({ GATEWAY_CURRENCY: currency }).includes("GATEWAY_CURRENCY"), currency);
  }
  for (const decimals of ["8", "1", "two", "2.5"]) {
    assertOk(refusal({ GATEWAY_MONEY_DECIMALS: decimals }).includes("GATEWAY_MONEY_DECIMALS"));
  }
  assertEquals(
    settingsWith({ GATEWAY_CURRENCY: "JPY", GATEWAY_MONEY_DECIMALS: "2" })().moneyFormat,
    {
      currency: "JPY",
      decimals: 2,
    },
  );
  assertEquals(settingsWith({})().moneyFormat, { currency: "USD", decimals: 6 });
});
