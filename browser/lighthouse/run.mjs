// Lighthouse on the reviewers' page, signed in: puppeteer-core (which
// Lighthouse brings) starts Debian's Chromium and signs the reviewer in
// through the page's form; Lighthouse then audits the page in the same
// browser without resetting its storage, at 1440×900 (the desktop preset)
// and 390×844 (mobile, with Lighthouse's simulated slow CPU and network).
// It prints the four categories' scores and the audits below full marks;
// a run that Lighthouse itself reports as failed is run once more.
//
//	npm i (once, here)
//	node run.mjs http://127.0.0.1:8090 reviewer@demo.example PASSWORD
import puppeteer from 'puppeteer-core';
import lighthouse from 'lighthouse';
import desktop from 'lighthouse/core/config/desktop-config.js';

const [base, email, password] = process.argv.slice(2);
if (!password) {
  console.error('usage: node run.mjs BASE_URL EMAIL PASSWORD');
  process.exit(2);
}
const port = 9333;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: 'new',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--remote-debugging-port=${port}`],
});
try {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.waitForSelector('#email', { visible: true });
  await page.type('#email', email);
  await page.type('#password', password);
  await page.click('#signin-submit');
  await page.waitForSelector('#queue-list .item');
  const screens = [
    ['1440x900', desktop, { screenEmulation: { mobile: false, width: 1440, height: 900, deviceScaleFactor: 1, disabled: false } }],
    ['390x844', undefined, { formFactor: 'mobile', screenEmulation: { mobile: true, width: 390, height: 844, deviceScaleFactor: 3, disabled: false } }],
  ];
  for (const [name, config, flags] of screens) {
    const audit = async () => (await lighthouse(`${base}/`, { port, disableStorageReset: true, output: 'json', logLevel: 'error', ...flags }, config, page)).lhr;
    let lhr = await audit();
    // note: a run whose trace failed (NO_NAVSTART, say) measured nothing and scores 0 where it could not
    // measure; Lighthouse asks to be run again: once, and the output says so
    if (lhr.runtimeError) {
      console.log(`${name}: Lighthouse failed (${lhr.runtimeError.code}), running it again`);
      lhr = await audit();
    }
    const signedIn = await page.evaluate(() => !document.querySelector('#queue-view').hidden);
    const scores = Object.entries(lhr.categories).map(([k, c]) => `${k} ${Math.round(c.score * 100)}`).join(', ');
    console.log(`${name}${signedIn ? ', signed in' : ', NOT signed in'}: ${scores}${lhr.runtimeError ? ` (failed: ${lhr.runtimeError.code})` : ''}`);
    // note: the live updates' stream (GET /api/realtime) is open while Lighthouse measures, as for a reviewer
    const live = (lhr.audits['network-requests']?.details?.items ?? []).some((r) => r.url.includes('/api/realtime'));
    const pending = await page.evaluate(() => document.querySelector('#queue-summary')?.textContent ?? '');
    console.log(`  realtime stream ${live ? 'open' : 'NOT seen'}; queue: ${pending}`);
    for (const a of Object.values(lhr.audits)) {
      if (a.score !== null && a.score < 1 && !['informative', 'manual', 'notApplicable'].includes(a.scoreDisplayMode)) {
        console.log(`  ${a.id} ${a.score}${a.displayValue ? ` (${a.displayValue})` : ''}`);
        // note: the elements an audit names (accessibility's), so that a failure can be found
        for (const i of (a.details?.items ?? []).slice(0, 5)) if (i.node?.selector) console.log(`    ${i.node.selector}`);
      }
    }
  }
} finally {
  await browser.close();
}
