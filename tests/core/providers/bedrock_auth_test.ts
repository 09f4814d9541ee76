import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  awsCredentialsOf,
  bedrockAuthHeaders,
  sigV4Headers,
} from "../../../core/providers/bedrock_auth.ts";
import { bedrockModelPath } from "../../../core/providers/bedrock.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";
import { canonicalRequest, sigV4Refusal } from "../../upstream/sigv4_verify.ts";

/** AWS's SigV4 test suite: its example credentials, scope and time. */
const SUITE = {
  credentials: {
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  },
  region: "us-east-1",
  service: "service",
};
const SUITE_DATE = "20150830T123600Z";
const SCOPE = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request";

/** Vectors of AWS's published suite (their request and the Authorization header it gives). */
const VECTORS: Array<{
  name: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  authorization: string;
}> = [
  {
    name: "get-vanilla",
    method: "GET",
    url: "https://example.amazonaws.com/",
    headers: {},
    body: "",
    authorization: `AWS4-HMAC-SHA256 Credential=${SCOPE}, SignedHeaders=host;x-amz-date, ` +
      "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
  },
  {
    name: "get-vanilla-query-order-key-case",
    method: "GET",
    url: "https://example.amazonaws.com/?Param2=value2&Param1=value1",
    headers: {},
    body: "",
    authorization: `AWS4-HMAC-SHA256 Credential=${SCOPE}, SignedHeaders=host;x-amz-date, ` +
      "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
  },
  {
    name: "post-x-www-form-urlencoded",
    method: "POST",
    url: "https://example.amazonaws.com/",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "Param1=value1",
    authorization: `AWS4-HMAC-SHA256 Credential=${SCOPE}, ` +
      "SignedHeaders=content-type;host;x-amz-date, " +
      "Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a",
  },
];

for (const vector of VECTORS) {
  Deno.test(`SigV4 signer: AWS's ${vector.name} vector`, async () => {
    const headers = await sigV4Headers(
      { ...vector, datetime: SUITE_DATE },
      SUITE,
    );
    assertEquals(headers.authorization, vector.authorization);
    assertEquals(headers["x-amz-date"], SUITE_DATE);
  });

  Deno.test(`SigV4 simulator check: AWS's ${vector.name} vector holds, a changed one does not`, async () => {
    const secrets = {
      secrets: { AKIDEXAMPLE: SUITE.credentials.secretAccessKey },
      region: "us-east-1",
      service: "service",
      now: () => new Date("2015-08-30T12:36:00Z"),
    };
    const request = (authorization: string) => ({
      method: vector.method,
      url: vector.url,
      headers: new Headers({ ...vector.headers, "x-amz-date": SUITE_DATE, authorization }),
    });
    const body = new TextEncoder().encode(vector.body);
    assertEquals(await sigV4Refusal(request(vector.authorization), body, secrets), undefined);
    const tampered = vector.authorization.replace(/.$/, (c) => c === "0" ? "1" : "0");
    assertEquals(
      (await sigV4Refusal(request(tampered), body, secrets))?.type,
      "InvalidSignatureException",
    );
    const later = { ...secrets, now: () => new Date("2015-08-30T12:52:00Z") };
    assertOk(
      (await sigV4Refusal(request(vector.authorization), body, later))?.message.startsWith(
        "Signature expired: 20150830T123600Z is now earlier than",
      ),
    );
  });
}

Deno.test("SigV4 signer: a session token is sent and signed", async () => {
  const headers = await sigV4Headers(
    { method: "GET", url: "https://example.amazonaws.com/", headers: {}, body: "" },
    { ...SUITE, credentials: { ...SUITE.credentials, sessionToken: "TOKEN/abc+=" } },
  );
  assertEquals(headers["x-amz-security-token"], "TOKEN/abc+=");
  assertOk(headers.authorization.includes("SignedHeaders=host;x-amz-date;x-amz-security-token,"));
});

Deno.test("Bedrock model ids: ':' and '/' are encoded in the path, and encoded again where signed", async () => {
  const id = "anthropic.claude-3-5-sonnet-20240620-v1:0";
  assertEquals(
    bedrockModelPath(id, "invoke"),
    "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/invoke",
  );
  assertEquals(
    bedrockModelPath(
      "arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.x-v1:0",
      "converse",
    ),
    "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.anthropic.x-v1%3A0/converse",
  );
  const url = `https://bedrock-runtime.us-east-1.amazonaws.com${bedrockModelPath(id, "invoke")}`;
  const signed = await sigV4Headers(
    { method: "POST", url, headers: { "content-type": "application/json" }, body: "{}" },
    { ...SUITE, service: "bedrock" },
  );
  // The check rebuilds the canonical request on its own, with the path encoded twice, as AWS.
  const canonical = await canonicalRequest(
    { method: "POST", url, headers: new Headers({ ...signed }) },
    ["content-type", "host", "x-amz-date"],
    new TextEncoder().encode("{}"),
  );
  assertEquals(
    canonical.split("\n")[1],
    "/model/anthropic.claude-3-5-sonnet-20240620-v1%253A0/invoke",
  );
  const refusal = await sigV4Refusal(
    { method: "POST", url, headers: new Headers(signed) },
    new TextEncoder().encode("{}"),
    {
      secrets: { AKIDEXAMPLE: SUITE.credentials.secretAccessKey },
      region: "us-east-1",
      service: "bedrock",
    },
  );
  assertEquals(refusal, undefined);
});

Deno.test("Bedrock keys: access key pairs with or without a session token; others refused unquoted", async () => {
  assertEquals(awsCredentialsOf("AKIAEXAMPLE:se/cr+et"), {
    accessKeyId: "AKIAEXAMPLE",
    secretAccessKey: "se/cr+et",
  });
  assertEquals(awsCredentialsOf("ASIAEXAMPLE:secret:tok=="), {
    accessKeyId: "ASIAEXAMPLE",
    secretAccessKey: "secret",
    sessionToken: "tok==",
  });
  for (
    const bad of ["just-a-secret", "AKIA:", ":secret", "AKIA:s:t:extra", "akia:secret", "A:s:"]
  ) {
    assertEquals(awsCredentialsOf(bad), undefined, bad);
  }
  const channel = { region: "us-east-1" } as Channel;
  const error = await bedrockAuthHeaders(channel, "bedrock-api-key-SECRETVALUE", {
    method: "POST",
    url: "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/invoke",
    headers: {},
    body: "{}",
  }).catch((error) => error);
  assertOk(error instanceof UpstreamAttemptError);
  assertEquals(error.message.includes("SECRETVALUE"), false);
  const bearer = await bedrockAuthHeaders(
    { ...channel, bedrock_auth: "api-key" } as Channel,
    "bedrock-api-key-SECRETVALUE",
    { method: "POST", url: "https://x/", headers: { accept: "application/json" }, body: "{}" },
  );
  assertEquals(bearer, {
    accept: "application/json",
    authorization: "Bearer bedrock-api-key-SECRETVALUE",
  });
});
