/**
 * How a long detail page is split, without JavaScript: tabs that are links (`?tab=usage`, the
 * page renders only that tab's sections) or a table of contents of anchor links to the sections
 * of one page.
 */

import { GatewayError } from "../../core/errors.ts";

export interface Tab<Id extends string = string> {
  id: Id;
  label: string;
}

/** The tab `?tab=` names, the first when none; an unknown one is a 400 naming the known ones. */
export function tabOf<Id extends string>(url: URL, tabs: readonly Tab<Id>[]): Id {
  const asked = url.searchParams.get("tab");
  if (asked === null || asked === "") return tabs[0].id;
  const tab = tabs.find((candidate) => candidate.id === asked);
  if (!tab) {
    throw new GatewayError(
      "invalid_tab",
      400,
      `No tab '${asked.slice(0, 40)}' here: one of ${tabs.map((known) => known.id).join(", ")}`,
    );
  }
  return tab.id;
}

/** The URL of `tab` of the page at `path` (the first tab is the page itself). */
export function tabHref<Id extends string>(
  path: string,
  tabs: readonly Tab<Id>[],
  tab: Id,
): string {
  return tab === tabs[0].id ? path : `${path}?tab=${tab}`;
}

export function SectionTabs<Id extends string>(
  { path, tabs, current }: { path: string; tabs: readonly Tab<Id>[]; current: Id },
) {
  return (
    <nav class="tabs" aria-label="Sections of this page">
      <ul>
        {tabs.map((tab) => (
          <li>
            <a
              href={tabHref(path, tabs, tab.id)}
              {...(tab.id === current ? { "aria-current": "page" } : {})}
            >
              {tab.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Anchor links to the sections of this page, by their `id`s. */
export function SectionToc({ sections }: { sections: ReadonlyArray<readonly [string, string]> }) {
  return (
    <nav class="toc" aria-label="On this page">
      <ul>
        {sections.map(([id, label]) => (
          <li>
            <a href={`#${id}`}>{label}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
