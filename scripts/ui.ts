/**
 * The quick start seen in a real browser (`npm run test:ui`, after `npm run build`).
 *
 * Starts the quick-start topology as `npm run dev` does (scripts/quick-start.ts; free ports, a
 * fresh temporary data folder), then drives headless Chromium (Debian's `chromium` package,
 * apt-installed when missing; playwright-core never downloads a browser) through what a new user
 * does: log in, open each example, find the Money node in the node creator, open its Payout →
 * Create panel, test the credential, run the pay-beneficiaries example and read its output.
 * Each check prints `ok - name` / `not ok - name: reason` and leaves a screenshot; the last line
 * is `N passed, N failed` (also appended to MONEY_TOTALS_FILE).
 *
 * Environment: UI_ONLY=substring (run matching checks only, after the login), UI_ARTIFACTS_DIR
 * (screenshots; default test-artifacts/ui/<time>, git-ignored), UI_KEEP=1 (keep the n8n data
 * folder; kept anyway on failure), CHROMIUM_PATH (default /usr/bin/chromium), and those of
 * scripts/n8n/versions.ts (MONEY_N8N_VERSION, MONEY_CACHE_DIR).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { BrowserContext, Page } from 'playwright-core';

import * as rt from './n8n';
import { oneLine, report, runMain, say } from './output';
import { startQuickStart, type Example, type QuickStart } from './quick-start';
import type { SandboxHandle } from './sandbox-process';

const REPO = path.resolve(__dirname, '..');
const OWNER = { email: 'ui-owner@example.com', password: 'Ui-owner-pass-1', firstName: 'UI', lastName: 'Owner' };
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
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
const PAY_EXAMPLE = 'pay-beneficiaries.json';
const PAYOUT_NODE = 'Send payout';
// Generous: the editor loads megabytes of JavaScript and CI machines are shared.
const STEP_TIMEOUT_MS = 60_000;
const LOAD_TIMEOUT_MS = 120_000;

interface UiCheck {
	name: string;
	/** Screenshot name. */
	shot: string;
	fn(): Promise<void>;
}

interface UiContext {
	page: Page;
	url: string;
	examples: Example[];
	credential: QuickStart['credential'];
	sandbox: SandboxHandle;
}

/** Debian's chromium, installed with apt-get when missing (root only; otherwise say how). */
function ensureChromium(): string {
	if (fs.existsSync(CHROMIUM)) return CHROMIUM;
	if (process.env.CHROMIUM_PATH) throw new Error(`CHROMIUM_PATH=${CHROMIUM} does not exist`);
	if (typeof process.getuid === 'function' && process.getuid() !== 0) {
		throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (sudo apt-get install chromium)`);
	}
	say('# installing Debian\'s chromium package (apt-get, first run only)...');
	const apt = (args: string[]) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
	let res = apt(['install', '-y', '--no-install-recommends', 'chromium']);
	if (res.status !== 0) {
		apt(['update']);
		res = apt(['install', '-y', '--no-install-recommends', 'chromium']);
	}
	if (res.status !== 0 || !fs.existsSync(CHROMIUM)) throw new Error('apt-get install chromium failed');
	return CHROMIUM;
}

function buildChecks(ctx: UiContext): UiCheck[] {
	const { page, url, examples } = ctx;
	const byFile = (file: string) => examples.find((e) => path.basename(e.file) === file) as Example;
	const openWorkflow = async (example: Example) => {
		await page.goto(`${url}/workflow/${example.workflow.id}`, { waitUntil: 'domcontentloaded' });
		await page.getByTestId('canvas-node').first().waitFor({ timeout: LOAD_TIMEOUT_MS });
	};
	const canvasNode = (name: string) => page.getByTestId('canvas-node').filter({ hasText: name }).first();
	const openNode = async (name: string) => {
		await canvasNode(name).dblclick();
		await page.getByTestId('ndv').first().waitFor();
	};

	const checks: UiCheck[] = [];
	for (const example of examples) {
		const { name, nodes } = example.workflow;
		checks.push({
			name: `example "${name}" opens with its ${nodes.length} nodes`,
			shot: `example-${path.basename(example.file, '.json')}`,
			async fn() {
				await openWorkflow(example);
				for (const node of nodes as rt.Json[]) await canvasNode(node.name).waitFor();
				const shown = await page.getByTestId('canvas-node').count();
				if (shown !== nodes.length) throw new Error(`the canvas shows ${shown} nodes, the example has ${nodes.length}`);
			},
		});
	}

	checks.push({
		name: 'the node creator finds the Money node by "Money" and lists its Payout actions',
		shot: 'node-creator-money',
		async fn() {
			await openWorkflow(byFile(PAY_EXAMPLE));
			await page.getByTestId('node-creator-plus-button').click();
			await page.getByTestId('node-creator-search-bar').fill('Money');
			const items = page.getByTestId('node-creator-item-name');
			await items.filter({ hasText: /^Money$/ }).first().waitFor();
			const names = (await items.allInnerTexts()).map((t) => t.trim());
			for (const want of ['Money', 'Money Poll Trigger']) {
				if (!names.includes(want)) throw new Error(`"${want}" is not among ${JSON.stringify(names)}`);
			}
			await items.filter({ hasText: /^Money$/ }).first().click();
			for (const action of ['Create a payout', 'Get a payout', 'Get many payouts', 'Create a charge']) {
				await page.getByText(action, { exact: true }).first().waitFor();
			}
		},
	});

	checks.push({
		name: 'the Money node shows the Payout → Create panel with its fields and the sandbox credential',
		shot: 'payout-create-panel',
		async fn() {
			await openWorkflow(byFile(PAY_EXAMPLE));
			await openNode(PAYOUT_NODE);
			const ndv = page.getByTestId('ndv').first();
			const valueOf = async (parameter: string) => await ndv.locator(`[data-test-id="parameter-input-${parameter}"] input`).first().inputValue();
			const [resource, operation] = [await valueOf('resource'), await valueOf('operation')];
			if (resource !== 'Payout' || operation !== 'Create') throw new Error(`resource "${resource}", operation "${operation}"; expected Payout, Create`);
			for (const label of ['Amount', 'Currency', 'Beneficiary Identifier', 'Channel', 'Business Reference']) {
				await ndv.getByText(label, { exact: true }).first().waitFor();
			}
			const credential = await ndv.locator('[data-test-id="node-credentials-select"] input').first().inputValue();
			if (credential !== ctx.credential.name) throw new Error(`credential "${credential}"; expected "${ctx.credential.name}"`);
		},
	});

	checks.push({
		name: "the credential's Test (Retry) succeeds against the sandbox",
		shot: 'credential-test',
		async fn() {
			await page.goto(`${url}/home/credentials`, { waitUntil: 'domcontentloaded' });
			await page.getByText(ctx.credential.name, { exact: true }).first().click({ timeout: LOAD_TIMEOUT_MS });
			const modal = page.getByTestId('editCredential-modal').first();
			const success = modal.getByText('Connection tested successfully', { exact: true }).first();
			await success.waitFor(); // n8n tests a saved credential when it opens
			const before = await ctx.sandbox.control.counters();
			await modal.getByRole('button', { name: 'Retry', exact: true }).click();
			await success.waitFor();
			const deadline = Date.now() + STEP_TIMEOUT_MS;
			let after = await ctx.sandbox.control.counters();
			while (requestsOf(after) <= requestsOf(before) && Date.now() < deadline) {
				await new Promise((r) => setTimeout(r, 250));
				after = await ctx.sandbox.control.counters();
			}
			if (requestsOf(after) <= requestsOf(before)) throw new Error('Retry showed success but no request reached the sandbox');
		},
	});

	checks.push({
		name: 'running the pay-beneficiaries example pays its 60 rows, paced, and shows them in the output',
		shot: 'pay-beneficiaries-run',
		async fn() {
			await openWorkflow(byFile(PAY_EXAMPLE));
			await page.getByTestId('execute-workflow-button').first().click();
			await canvasNode(PAYOUT_NODE).getByTestId('canvas-node-status-success').waitFor({ timeout: LOAD_TIMEOUT_MS });
			await openNode(PAYOUT_NODE);
			const output = page.getByTestId('output-panel').first();
			await output.getByText('60 items', { exact: true }).first().waitFor();
			const text = await output.innerText();
			const references = [...new Set(text.match(/pay_[0-9a-f]+/g) || [])];
			if (references.length === 0) throw new Error('the output shows no payout reference');
			if (!text.includes('idempotency_key')) throw new Error('the output shows no idempotency_key column');
			const ledger = await ctx.sandbox.control.ledger();
			const paid = new Set(ledger.payouts.map((p) => p.reference));
			if (paid.size !== 60) throw new Error(`the sandbox holds ${paid.size} payouts, expected 60`);
			const unknown = references.filter((reference) => !paid.has(reference));
			if (unknown.length > 0) throw new Error(`the output shows payouts the sandbox does not hold: ${JSON.stringify(unknown)}`);
		},
	});
	return checks;
}

/** Requests the sandbox API host answered with 2xx (a credential test is one GET /money/v1/account). */
function requestsOf(counters: { accepted?: number } | undefined): number {
	return Number((counters && counters.accepted) || 0);
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
			viewport: { width: 1440, height: 900 },
		});
		browser.setDefaultTimeout(STEP_TIMEOUT_MS);
		const page = browser.pages()[0] || (await browser.newPage());
		let shot = 0;
		const screenshot = async (name: string) => {
			const file = path.join(artifacts, `${String(++shot).padStart(2, '0')}-${name}.png`);
			await page.screenshot({ path: file }).catch(() => undefined);
			return file;
		};

		const ctx: UiContext = { page, url, examples: quickStart.examples, credential: quickStart.credential, sandbox: quickStart.sandbox };
		const login: UiCheck = {
			name: 'log in as the owner',
			shot: 'logged-in',
			async fn() {
				await page.goto(`${url}/signin`, { waitUntil: 'domcontentloaded' });
				await page.locator('input[name="emailOrLdapLoginId"], input[name="email"]').first().fill(OWNER.email);
				await page.locator('input[name="password"]').first().fill(OWNER.password);
				await page.getByTestId('form-submit-button').first().click();
				await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
			},
		};
		const only = process.env.UI_ONLY;
		const checks = [login, ...buildChecks(ctx).filter((c) => !only || c.name.includes(only))];
		for (const check of checks) {
			const t = Date.now();
			try {
				await check.fn();
				passed++;
				const file = await screenshot(check.shot);
				say(`ok - ${check.name} (${((Date.now() - t) / 1000).toFixed(1)} s; ${path.basename(file)})`);
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
