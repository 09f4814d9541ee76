import { assertEquals } from "../../helpers/assert.ts";
import {
  currencyPrefix,
  moneyText,
  ofTieredUnits,
  ofUnits,
  priceMoneyText,
} from "../../../routes/console/money_text.ts";
import { consoleMoney } from "../../../routes/console/money.tsx";

const USD2 = { currency: "USD", decimals: 2 };

Deno.test("moneyText() rounds an amount half away from zero to the precision, exact beside", () => {
  assertEquals(moneyText(ofUnits(1_234_567), USD2), {
    text: "$1.23",
    exact: "$1.234567",
    rounded: true,
  });
  assertEquals(moneyText(ofUnits(1_005_000), USD2).text, "$1.01");
  assertEquals(moneyText(ofUnits(1_004_999), USD2).text, "$1.00");
  assertEquals(moneyText(ofUnits(-1_005_000), USD2).text, "-$1.01");
  assertEquals(moneyText(ofUnits(2_000_000), USD2), {
    text: "$2.00",
    exact: "$2.00",
    rounded: false,
  });
  assertEquals(moneyText(ofUnits(0), USD2), { text: "$0.00", exact: "$0.00", rounded: false });
});

Deno.test("moneyText() never shows a non-zero amount as zero", () => {
  assertEquals(moneyText(ofUnits(1), USD2), {
    text: "< $0.01",
    exact: "$0.000001",
    rounded: true,
  });
  assertEquals(moneyText(ofUnits(4_999), USD2).text, "< $0.01");
  assertEquals(moneyText(ofUnits(5_000), USD2).text, "$0.01");
  assertEquals(moneyText(ofUnits(-4_560), USD2), {
    text: "> -$0.01",
    exact: "-$0.00456",
    rounded: true,
  });
  assertEquals(moneyText(ofUnits(40), { currency: "EUR", decimals: 4 }).text, "< €0.0001");
});

Deno.test("moneyText() at 6 decimals is exact; thousands are grouped", () => {
  const usd6 = { currency: "USD", decimals: 6 };
  assertEquals(moneyText(ofUnits(1), usd6), {
    text: "$0.000001",
    exact: "$0.000001",
    rounded: false,
  });
  assertEquals(moneyText(ofUnits(1_234_567_890_123), usd6).text, "$1,234,567.890123");
  assertEquals(moneyText(ofUnits(-12_345_678), usd6).text, "-$12.345678");
  assertEquals(moneyText(ofUnits(Number.MAX_SAFE_INTEGER), usd6).text, "$9,007,199,254.740991");
});

Deno.test("currencyPrefix(): the currency's symbol; a code-like one is set apart", () => {
  assertEquals(currencyPrefix("USD"), "$");
  assertEquals(currencyPrefix("EUR"), "€");
  assertEquals(currencyPrefix("CNY"), "CN¥");
  assertEquals(currencyPrefix("CHF"), "CHF ");
  assertEquals(moneyText(ofUnits(1_500_000), { currency: "CHF", decimals: 2 }).text, "CHF 1.50");
});

Deno.test("priceMoneyText(): a price is never rounded, and shows at least the precision", () => {
  assertEquals(priceMoneyText(ofUnits(15), USD2), "$0.000015");
  assertEquals(priceMoneyText(ofUnits(150_000), USD2), "$0.15");
  assertEquals(priceMoneyText(ofUnits(2_000_000), USD2), "$2.00");
  assertEquals(priceMoneyText(ofUnits(0), USD2), "$0.00");
  // 3 units × 0.8: a fraction of a unit, shown whole.
  assertEquals(
    priceMoneyText(ofTieredUnits(3, { group: "vip", multiplier: 8_000 }), USD2),
    "$0.0000024",
  );
  assertEquals(
    priceMoneyText(ofTieredUnits(1_000_000, { group: "vip", multiplier: 8_000 }), USD2),
    "$0.80",
  );
});

Deno.test("consoleMoney(): an amount's markup carries the exact amount when it is rounded", () => {
  const money = consoleMoney(USD2);
  assertEquals(
    String(money.amount(1_234_567)),
    '<span class="money" title="exactly $1.234567">$1.23</span>',
  );
  assertEquals(String(money.amount(2_000_000)), '<span class="money">$2.00</span>');
  assertEquals(
    String(money.amount(1)),
    '<span class="money" title="exactly $0.000001">&lt; $0.01</span>',
  );
  assertEquals(money.text(1_234_567), "$1.23");
  assertEquals(money.full(1_234_567), "$1.23 (exactly $1.234567)");
  assertEquals(money.full(2_000_000), "$2.00");
  assertEquals(money.price(15), "$0.000015");
});
