/**
 * Headless Chromium for page tests, driven by playwright-core (no browser download: Debian's
 * `chromium` package, which `.ci/run` installs). Outside CI a machine without Chromium skips
 * these tests; under CI=true a missing browser is a failure, not a skip.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.APTPACE_CHROMIUM ?? '/usr/bin/chromium';
export const inCi = process.env.CI === 'true';
/** True when the browser tests should run: Chromium is present, or we are in CI (where its absence must fail). */
export const browserAvailable = existsSync(CHROMIUM) || inCi;

// Flags the machine notes call for: no sandbox as root, and no background networking (the
// sandbox's closed network otherwise refuses many connections at every start).
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--font-render-hinting=none',
];

export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/**
 * Elements whose text is cut off: content wider than the box with hidden overflow, or text
 * running past the right edge of the viewport. Returns a description of each, for assertions.
 */
export const CLIPPED_TEXT_PROBE = `(() => {
  const out = [];
  const width = document.documentElement.clientWidth;
  for (const el of document.querySelectorAll('body *')) {
    if (!(el instanceof HTMLElement) || el.offsetParent === null) continue;
    if (!el.textContent || !el.textContent.trim() || el.children.length > 0) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    const hidesOverflow = style.overflowX === 'hidden' || style.textOverflow === 'ellipsis';
    if (hidesOverflow && el.scrollWidth > el.clientWidth + 1) out.push('overflow: ' + el.textContent.slice(0, 60));
    if (box.right > width + 1) out.push('past right edge: ' + el.textContent.slice(0, 60));
  }
  return out;
})()`;
