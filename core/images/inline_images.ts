/**
 * The checks of `/v1/images/edits`, applied to the `inlineData` images of an image model's
 * generateContent request before anything is held or sent: each image under 4 MB, at most 16, of a
 * type both image channel kinds read (PNG, JPEG, WebP; Gemini also takes HEIC/HEIF, OpenAI's edits
 * do not), and really of its declared type, judged from its bytes. A PNG is also decoded far
 * enough to refuse a truncated or corrupt one. Unlike an edit's file, an image here need not be
 * square or transparent: Gemini edits from an instruction, not a mask.
 */

import { bytesOfBase64 } from "../util/base64.ts";
import { invalidRequest } from "../errors.ts";
import { MEDIA_SNIFF_BYTES, sniffMedia } from "../media/media_store.ts";
import { MAX_EDIT_FILE_BYTES, MAX_EDIT_IMAGES, readChecked } from "./edit_inputs.ts";

const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp"]);
/** Labels clients send for a type under another name. */
const ALIASES: Record<string, string> = { "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg" };

interface InlinePart {
  inlineData?: { mimeType?: string; data?: string };
}

/** Refuses (400 naming the part) any inlineData of `contents` that is not the image it says. */
export async function checkInlineImages(
  contents: ReadonlyArray<{ parts: ReadonlyArray<InlinePart> }>,
): Promise<void> {
  const located = contents.flatMap((content, c) =>
    content.parts.flatMap((part, p) =>
      part.inlineData
        ? [{ data: part.inlineData, param: `contents[${c}].parts[${p}].inlineData` }]
        : []
    )
  );
  if (located.length > MAX_EDIT_IMAGES) {
    throw invalidRequest(
      `At most ${MAX_EDIT_IMAGES} inline images can be sent to an image model; there are ${located.length}`,
      "contents",
    );
  }
  for (const { data, param } of located) {
    const declared = (data.mimeType ?? "").trim().toLowerCase();
    const type = ALIASES[declared] ?? declared;
    if (!INLINE_IMAGE_TYPES.has(type)) {
      throw invalidRequest(
        `${param}.mimeType is '${data.mimeType}'; an image model takes PNG, JPEG or WebP images (image/png, image/jpeg, image/webp)`,
        param,
        "invalid_image",
      );
    }
    const bytes = bytesOfBase64(data.data ?? "");
    if (!bytes || bytes.length === 0) {
      throw invalidRequest(`${param}.data is not base64 image data`, param, "invalid_image");
    }
    if (bytes.length >= MAX_EDIT_FILE_BYTES) {
      throw invalidRequest(
        `${param} is ${bytes.length.toLocaleString("en")} bytes; it must be smaller than 4 MB`,
        param,
        "image_too_large",
      );
    }
    const sniffed = await sniffMedia(bytes.subarray(0, MEDIA_SNIFF_BYTES));
    if (sniffed.contentType !== type) {
      throw invalidRequest(
        `${param} is labelled ${type} but its bytes are ${sniffed.seen}; send the image's own bytes and type`,
        param,
        "invalid_image",
      );
    }
    if (type === "image/png") readChecked(bytes, param, param);
  }
}
