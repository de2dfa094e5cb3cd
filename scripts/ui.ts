/**
 * The quick start seen in a real browser (`npm run test:ui`, after `npm run build`).
 *
 * Starts the quick-start topology as `npm run dev` does (scripts/quick-start.ts; free ports, a
 * fresh temporary data folder), then drives headless Chromium (Debian's `chromium` package,
 * apt-installed when missing; playwright-core never downloads a browser) through what a new user
 * does: log in, open each example and read its sticky notes, find the Money node in the node
 * creator, open its Payout → Create panel, test the credential, run the pay-beneficiaries and
 * daily-reconciliation examples (on the charges the quick start seeded) and read their outputs,
 * then edit an example and restart the quick start on the same data folder (the checks:
 * scripts/ui/checks.ts). Each check prints `ok - name` /
 * `not ok - name: reason` and leaves a screenshot; the last line is `N passed, N failed` (also
 * appended to MONEY_TOTALS_FILE).
 *
 * `--doc-images` (`npm run docs:images`): the same run in a smaller window, and the checks that
 * have a README picture write it to docs/images/ (the credential, the Payout → Create panel, a
 * finished payout run, a reconciliation's outputs, the approve-payout-run and agent examples). Look at them
 * before committing.
 *
 * Environment: UI_ONLY=substring (run matching checks only, after the login), UI_ARTIFACTS_DIR
 * (screenshots; default test-artifacts/ui/<time>, git-ignored), UI_KEEP=1 (keep the n8n data
 * folder; kept anyway on failure), CHROMIUM_PATH (default /usr/bin/chromium), and those of
 * scripts/n8n/versions.ts (MONEY_N8N_VERSION, MONEY_CACHE_DIR).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

import * as rt from './n8n';
import { oneLine, report, runMain, say } from './output';
import { startQuickStart, type QuickStart } from './quick-start';
import { ensureChromium } from './ui/chromium';
import { buildChecks, STEP_TIMEOUT_MS, type UiCheck, type UiContext } from './ui/checks';

const REPO = path.resolve(__dirname, '..');
const OWNER = { email: 'ui-owner@example.com', password: 'Ui-owner-pass-1', firstName: 'UI', lastName: 'Owner' };
const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];
const DOC_IMAGES = process.argv.includes('--doc-images');
/** Small enough for a README, wide enough for n8n's panels. */
const DOC_VIEWPORT = { width: 1440, height: 810 };
const DOC_IMAGES_DIR = path.join(REPO, 'docs', 'images');

async function writeDocImage(page: Page, image: NonNullable<UiCheck['docImage']>): Promise<string> {
	fs.mkdirSync(DOC_IMAGES_DIR, { recursive: true });
	// n8n's notifications ("Workflow executed successfully") fade in over the corner: closed first.
	for (const close of await page.locator('.el-notification__closeBtn').all()) await close.click().catch(() => undefined);
	await page.locator('.el-notification').first().waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
	const file = path.join(DOC_IMAGES_DIR, `${image.name}.png`);
	await image.capture(file);
	return `README picture ${path.relative(REPO, file)} (${Math.round(fs.statSync(file).size / 1024)} KB)`;
}

async function main(): Promise<number> {
	const t0 = Date.now();
	rt.builtPackDir(undefined, REPO);
	const executablePath = ensureChromium();
	const { chromium, selectors } = require('playwright-core') as typeof import('playwright-core');
	selectors.setTestIdAttribute('data-test-id');

	const stamp = new Date().toISOString().replace(/[:.]/g, '-');
	const artifacts = path.resolve(process.env.UI_ARTIFACTS_DIR || path.join(REPO, 'test-artifacts', 'ui', stamp));
	fs.mkdirSync(artifacts, { recursive: true });
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'money-ui-'));
	const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'money-ui-chromium-'));

	let passed = 0;
	let failed = 0;
	let quickStart: QuickStart | null = null;
	let browser: BrowserContext | null = null;
	const cleanup = async () => {
		await Promise.allSettled([browser && browser.close(), quickStart && quickStart.stop()]);
		fs.rmSync(profileDir, { recursive: true, force: true });
	};
	process.once('SIGINT', () => {
		say('# interrupted; stopping the browser, n8n and the sandbox');
		cleanup().finally(() => process.exit(130));
	});
	try {
		say(`# starting the quick start (n8n ${rt.n8nVersion()}, sandbox) in ${dataDir}...`);
		quickStart = await startQuickStart({ dataDir, owner: OWNER, say: (m) => say(`# ${m}`) });
		const url = `http://localhost:${quickStart.port}`;
		say(`# n8n ${url}; chromium ${executablePath}; screenshots in ${artifacts}`);

		// A fresh profile folder (playwright passes it as --user-data-dir).
		browser = await chromium.launchPersistentContext(profileDir, {
			executablePath,
			headless: true,
			args: CHROMIUM_FLAGS,
			viewport: DOC_IMAGES ? DOC_VIEWPORT : { width: 1440, height: 900 },
		});
		browser.setDefaultTimeout(STEP_TIMEOUT_MS);
		const page = browser.pages()[0] || (await browser.newPage());
		let shot = 0;
		const screenshot = async (name: string) => {
			const file = path.join(artifacts, `${String(++shot).padStart(2, '0')}-${name}.png`);
			await page.screenshot({ path: file }).catch(() => undefined);
			return file;
		};

		const signIn = async () => {
			await page.goto(`${ctx.url}/signin`, { waitUntil: 'domcontentloaded' });
			await page.locator('input[name="emailOrLdapLoginId"], input[name="email"]').first().fill(OWNER.email);
			await page.locator('input[name="password"]').first().fill(OWNER.password);
			await page.getByTestId('form-submit-button').first().click();
			await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
		};
		const ctx: UiContext = {
			page,
			url,
			owner: OWNER,
			examples: quickStart.examples,
			credential: quickStart.credential,
			sandbox: quickStart.sandbox,
			async restart() {
				const { port } = quickStart as QuickStart;
				await (quickStart as QuickStart).stop();
				quickStart = null;
				say('# restarting the quick start on the same data folder...');
				quickStart = await startQuickStart({ dataDir, owner: OWNER, port, say: (m) => say(`# ${m}`) });
				Object.assign(ctx, { url: `http://localhost:${quickStart.port}`, examples: quickStart.examples, sandbox: quickStart.sandbox });
				await page.context().clearCookies(); // a new sign-in, whatever n8n kept of the session
				await signIn();
				return quickStart;
			},
		};
		const login: UiCheck = { name: 'log in as the owner', shot: 'logged-in', fn: signIn };
		const only = process.env.UI_ONLY;
		const checks = [login, ...buildChecks(ctx).filter((c) => !only || c.name.includes(only))];
		for (const check of checks) {
			const t = Date.now();
			try {
				await check.fn();
				passed++;
				const file = await screenshot(check.shot);
				say(`ok - ${check.name} (${((Date.now() - t) / 1000).toFixed(1)} s; ${path.basename(file)})`);
				if (DOC_IMAGES && check.docImage) say(`# ${await writeDocImage(page, check.docImage)}`);
			} catch (err) {
				failed++;
				const file = await screenshot(`${check.shot}-FAILED`);
				say(`not ok - ${check.name}: ${oneLine(err, 800)} (${path.basename(file)})`);
				if (check === login) break;
			}
		}
	} catch (err) {
		failed++;
		say(`not ok - setup: ${oneLine(err, 800)}`);
	} finally {
		await cleanup();
	}
	if (failed > 0 || process.env.UI_KEEP === '1') say(`# n8n data folder kept for inspection: ${dataDir} (n8n.log, sandbox.log)`);
	else fs.rmSync(dataDir, { recursive: true, force: true });
	say(`# screenshots: ${artifacts}`);
	say(`# n8n ${rt.n8nVersion()}; total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	report(passed, failed);
	return failed === 0 ? 0 : 1;
}

runMain(main);
