import { t } from '@lingui/core/macro';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { cn } from './cn';

interface Section {
  id: string;
  title: string;
}

/** "Two-Step Sign-In" → "two-step-sign-in": a section's id when its card gives it none. */
function slug(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'section'
  );
}

/** The sections of a long page: its children that are a `section` named by a heading. */
function sectionsIn(content: HTMLElement): HTMLElement[] {
  return Array.from(content.querySelectorAll<HTMLElement>(':scope > section[aria-labelledby]'));
}

function headingOf(section: HTMLElement): HTMLElement | null {
  return document.getElementById(section.getAttribute('aria-labelledby') ?? '');
}

/**
 * A long page's cards with "On this page" before them: a link to each card's heading, sticky in
 * the margin beside the cards on a wide screen (the screen's column keeps its width) and a compact
 * list above them on a narrower one. The sections are
 * the children that render a `section` named by its heading (a `TitledCard`); a card that renders
 * nothing has no link, and one that appears later gets one. A section without an id gets one from
 * its heading ("#two-step-sign-in"). A link moves focus to the section's heading, and the section
 * being read is marked (`aria-current`).
 */
export function PageSections({
  children,
  label = t`On this page`,
}: {
  children: ReactNode;
  /** The list's name, shown above it (App Settings keeps the spec's "Settings sections"). */
  label?: string;
}) {
  const content = useRef<HTMLDivElement>(null);
  const labelId = useId();
  const [sections, setSections] = useState<Section[]>([]);
  const [current, setCurrent] = useState<string | null>(null);

  // Which sections there are: read from the page, again whenever a card comes or goes.
  useEffect(() => {
    const root = content.current;
    if (!root) return;
    const read = () => {
      const taken = new Set<string>();
      const found = sectionsIn(root).map((section) => {
        const title = headingOf(section)?.textContent?.trim() ?? '';
        if (!section.id || taken.has(section.id)) {
          let id = slug(title);
          for (let n = 2; taken.has(id) || document.getElementById(id); n++)
            id = `${slug(title)}-${n}`;
          section.id = id;
        }
        taken.add(section.id);
        return { id: section.id, title };
      });
      setSections((was) => (JSON.stringify(was) === JSON.stringify(found) ? was : found));
    };
    read();
    const observer = new MutationObserver(read);
    observer.observe(root, { childList: true });
    return () => observer.disconnect();
  }, []);

  // The section being read: the first one in the upper part of the window.
  useEffect(() => {
    const root = content.current;
    if (!root || sections.length === 0 || typeof IntersectionObserver === 'undefined') return;
    const visible = new Set<string>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) visible.add(entry.target.id);
          else visible.delete(entry.target.id);
        }
        const first = sections.find((s) => visible.has(s.id));
        if (first) setCurrent(first.id);
      },
      { rootMargin: '0px 0px -50% 0px' },
    );
    for (const section of sectionsIn(root)) observer.observe(section);
    return () => observer.disconnect();
  }, [sections]);

  // The browser follows the link (scrolls there, puts the id in the address); then its heading
  // takes focus, so Tab goes on inside the section and a screen reader reads from there.
  function go(id: string) {
    const section = document.getElementById(id);
    const heading = section ? headingOf(section) : null;
    if (!heading) return;
    if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
    setCurrent(id);
    requestAnimationFrame(() => heading.focus({ preventScroll: true }));
  }

  return (
    <div className="relative flex flex-col gap-6">
      {sections.length > 1 ? (
        // From 1280 px, in the margin left of the column (which keeps its width), down its height.
        <div className="xl:absolute xl:inset-y-0 xl:right-full xl:mr-8 xl:w-48">
          <nav
            aria-labelledby={labelId}
            className="rounded-xl border border-slate-200 bg-white px-4 py-3 xl:sticky xl:top-4 xl:border-0 xl:bg-transparent xl:p-0 dark:border-slate-800 dark:bg-slate-900 xl:dark:bg-transparent"
          >
            <p id={labelId} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
              {label}
            </p>
            <ul className="mt-1 flex flex-wrap gap-x-1 xl:flex-col xl:flex-nowrap">
              {sections.map((s) => (
                <li key={s.id}>
                  <a
                    href={`#${s.id}`}
                    aria-current={current === s.id ? 'true' : undefined}
                    onClick={() => go(s.id)}
                    className={cn(
                      'inline-flex min-h-11 items-center rounded-md px-2 text-sm text-blue-800 underline-offset-2 hover:underline dark:text-blue-300',
                      'focus-visible:outline-2 focus-visible:outline-blue-700 dark:focus-visible:outline-blue-300',
                      'aria-[current=true]:font-semibold aria-[current=true]:text-slate-900 dark:aria-[current=true]:text-slate-100',
                      'xl:rounded-none xl:border-l-2 xl:border-slate-200 xl:aria-[current=true]:border-blue-700 dark:xl:border-slate-700 dark:xl:aria-[current=true]:border-blue-300',
                    )}
                  >
                    {s.title}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        </div>
      ) : null}
      <div ref={content} className="flex min-w-0 flex-col gap-6">
        {children}
      </div>
    </div>
  );
}
