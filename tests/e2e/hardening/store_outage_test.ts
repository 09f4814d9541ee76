/**
 * The store stops mid-load and comes back (killed, restarted on the same file and address). An
 * instance serves only from the budget it had leased, refuses the rest with 503
 * `store_unavailable`, keeps the costs of what it served and writes them once the store is back:
 * afterwards Σ ledger = balance and credit − balance = Σ answered costs = Σ logged costs. Past the
 * grace, even a key without a limit is refused, in each interface's own envelope.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { type RemoteStore, remoteStoreTest } from "../../helpers/remote_store.ts";
import {
  adminCall,
  chat,
  eventually,
  interfaceCall,
  loggedCosts,
  makeKey,
  setUpTextModel,
} from "../../helpers/outage_setup.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";
import { IMAGE_MODEL, IMAGE_PRICE } from "../../helpers/image_setup.ts";

const WORKERS = 12;
const OPENING = 1_000_000;

function gatewayEnv(store: RemoteStore, graceMs: number) {
  return {
    ...store.env,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_LOG_REQUESTS: "0",
    GATEWAY_STORE_DEADLINE_MS: "500",
    GATEWAY_STORE_GRACE_MS: String(graceMs),
  };
}

remoteStoreTest(
  "store stopped and restarted mid-load: served from leases only, every cost written once",
  async (store) => {
    await using upstream = startOpenAIChatUpstream();
    await using gateway = await spawnGateway(gatewayEnv(store, 600_000));
    await setUpTextModel(gateway.url, upstream.baseUrl);
    const account = await adminCall(gateway.url, "POST", "/admin/accounts", {
      name: "outage",
      balance: OPENING,
    });
    const accountId: string = account.body.id;
    const keys: Array<{ key: string }> = [];
    for (let i = 0; i < 3; i++) keys.push(await makeKey(gateway.url, { account_id: accountId }));

    let answeredCost = 0;
    let answered = 0;
    let outage = false;
    let servedInOutage = 0;
    const refusals: string[] = [];
    let stop = false;
    const worker = async (index: number) => {
      for (let n = index; !stop; n++) {
        // max_tokens keeps each request's bound, and so the lease, small.
        const answer = await chat(gateway.url, keys[n % keys.length].key, { maxTokens: 10 });
        if (answer.status === 200) {
          answeredCost += answer.cost;
          answered++;
          if (outage) servedInOutage++;
          continue;
        }
        // Anything but the store's 503 is a failure of the test.
        if (answer.status !== 503 || answer.body.error?.code !== "store_unavailable") {
          stop = true;
          throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
        }
        refusals.push(answer.body.error.message);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, index) => worker(index));
    try {
      await eventually("answers before the outage", () => answered >= 100);
      await store.stop();
      outage = true;
      // The lease runs out (or never covered another request): refusals, not hangs.
      await eventually("a refusal in the outage", () => refusals.length > 0);
      await store.start();
      outage = false;
      const after = answered;
      await eventually("answers after the outage", () => answered >= after + 100);
    } finally {
      stop = true;
      await Promise.all(workers);
    }
    assertOk(
      refusals.some((message) => /budget it leased|unreachable|did not answer/.test(message)),
      refusals.join("\n"),
    );
    console.log(`served in the outage: ${servedInOutage}; refused: ${refusals.length}`);

    // Every cost answered is written once: the balance comes down by exactly their sum.
    let balance = NaN;
    await eventually("every answered cost written", async () => {
      const read = await adminCall(gateway.url, "GET", `/admin/accounts/${accountId}`);
      balance = read.body.balance;
      assertOk(OPENING - balance <= answeredCost, `charged ${OPENING - balance} > ${answeredCost}`);
      return OPENING - balance === answeredCost;
    });
    const verify = await adminCall(
      gateway.url,
      "GET",
      `/admin/accounts/${accountId}/ledger/verify`,
    );
    assertEquals(verify.body.ok, true, JSON.stringify(verify.body));
    await eventually(
      "every answered request logged",
      async () => (await loggedCosts(gateway.url, accountId)) === OPENING - balance,
    );
  },
  serverTest,
);

remoteStoreTest(
  "past the grace, a key without a limit is refused too, in each interface's envelope",
  async (store) => {
    await using upstream = startOpenAIChatUpstream();
    await using images = startOpenAIImagesUpstream();
    await using gateway = await spawnGateway(gatewayEnv(store, 1_500));
    await setUpTextModel(gateway.url, upstream.baseUrl);
    await adminCall(gateway.url, "PUT", `/admin/models/${IMAGE_MODEL}`, {
      kind: "image",
      price: IMAGE_PRICE,
    });
    await adminCall(gateway.url, "POST", "/admin/channels", {
      name: "images",
      type: "openai-images",
      base_url: images.baseUrl,
      keys: ["sk-upstream-test"],
      models: [IMAGE_MODEL],
    });
    const { id, key } = await makeKey(gateway.url, { unlimited: true });
    // A key with a spend cap holds in the store for every request: it has nothing to serve from.
    const capped = await makeKey(gateway.url, { balance: 1_000_000, spend_limits: { day: 1e9 } });
    assertEquals((await chat(gateway.url, capped.key)).status, 200);
    let answeredCost = 0;
    for (let i = 0; i < 3; i++) {
      const answer = await chat(gateway.url, key);
      assertEquals(answer.status, 200);
      answeredCost += answer.cost;
    }

    await store.stop();
    const cappedAnswer = await chat(gateway.url, capped.key);
    assertEquals(
      [cappedAnswer.status, cappedAnswer.body.error?.code],
      [503, "store_unavailable"],
      JSON.stringify(cappedAnswer.body),
    );
    // Within the grace it may still answer (its costs kept in memory); past it, never.
    await eventually("a refusal past the grace", async () => {
      const answer = await chat(gateway.url, key);
      if (answer.status === 200) answeredCost += answer.cost;
      return answer.status === 503;
    });
    const openai = await interfaceCall(gateway.url, key, "openai");
    assertEquals([openai.status, openai.body.error.code], [503, "store_unavailable"]);
    const anthropic = await interfaceCall(gateway.url, key, "anthropic");
    // Anthropic's envelope says a gateway short of capacity with its own 529.
    assertEquals(anthropic.body.type, "error", JSON.stringify(anthropic.body));
    assertEquals(anthropic.body.error.type, "overloaded_error");
    assertOk([503, 529].includes(anthropic.status), String(anthropic.status));
    const gemini = await interfaceCall(gateway.url, key, "gemini");
    assertEquals([gemini.status, gemini.body.error.status], [503, "UNAVAILABLE"]);
    assertOk(/grace|longer than this instance serves/.test(openai.body.error.message));
    // An image is charged in an entry of its own after its answer, with no lease: refused too.
    const imagesBefore = images.requests.length;
    const image = await fetch(`${gateway.url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: IMAGE_MODEL, prompt: "in an outage" }),
    });
    const imageBody = await image.json();
    assertEquals([image.status, imageBody.error?.code], [503, "store_unavailable"]);
    assertEquals(images.requests.length, imagesBefore, "the upstream was called");

    await store.start();
    await eventually("the costs answered in the grace written", async () => {
      const ledger = await adminCall(gateway.url, "GET", `/admin/ledger?key=${id}&limit=1000`);
      if (ledger.status !== 200) return false;
      const charged = ledger.body.data.reduce(
        (sum: number, entry: { amount: number }) => sum - entry.amount,
        0,
      );
      assertOk(charged <= answeredCost, `charged ${charged} > answered ${answeredCost}`);
      return charged === answeredCost;
    });
  },
  serverTest,
);
