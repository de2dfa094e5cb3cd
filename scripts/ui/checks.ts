/**
 * The checks of `npm run test:ui` (scripts/ui.ts): what a new user does in the quick start, in a
 * real browser. Six of them also leave the pictures of the README (`docImage`; written to
 * docs/images/ by `npm run docs:images`).
 */

import * as path from 'node:path';
import type { Page } from 'playwright-core';

import * as rt from '../n8n';
import type { Example, QuickStart } from '../quick-start';
import type { SandboxHandle } from '../sandbox-process';
import { DAILY_RECONCILIATION_COUNTS } from '../../test/fixtures/daily-reconciliation';

const PAY_EXAMPLE = 'pay-beneficiaries.json';
const PAYOUT_NODE = 'Send payout';
const RECONCILE_EXAMPLE = 'daily-reconciliation.json';
const RECONCILE_NODE = "Reconcile yesterday's charges";
/** The examples whose canvas is a README picture, by file: the picture's name. */
const EXAMPLE_PICTURES: Record<string, string> = { 'approve-payout-run.json': 'approve-payout-run', 'agent-pays-within-mandate.json': 'agent-mandate' };
const STICKY_NOTE_TYPE = 'n8n-nodes-base.stickyNote';
const EDIT_MARK = 'Edited before the restart.';
// Generous: the editor loads megabytes of JavaScript and CI machines are shared.
export const STEP_TIMEOUT_MS = 60_000;
export const LOAD_TIMEOUT_MS = 120_000;

export interface UiCheck {
	name: string;
	/** Screenshot name. */
	shot: string;
	/** A README picture this check leaves when it passes: docs/images/<name>.png, of what `capture` shows. */
	docImage?: { name: string; capture(file: string): Promise<void> };
	fn(): Promise<void>;
}

/** What the checks see of the quick start; `restart` replaces url, examples and sandbox with those of the restarted one. */
export interface UiContext {
	page: Page;
	url: string;
	owner: rt.Owner;
	examples: Example[];
	credential: QuickStart['credential'];
	sandbox: SandboxHandle;
	/** Stop the quick start and start it again on the same data folder and editor port, as a user restarting `npm run dev` does. */
	restart(): Promise<Pick<QuickStart, 'seededReconciliation'>>;
}

/** Requests the sandbox API host answered with 2xx (a credential test is one GET /money/v1/account). */
function requestsOf(counters: { accepted?: number } | undefined): number {
	return Number((counters && counters.accepted) || 0);
}

/** The first line of a sticky note's Markdown as the canvas shows it: a heading without its #, its apostrophes typographic or not. */
function stickyHeading(node: rt.Json): RegExp {
	const heading = String(node.parameters.content).split('\n')[0].replace(/^#+\s*/, '');
	return new RegExp(heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/'/g, "['’]"));
}

export function buildChecks(ctx: UiContext): UiCheck[] {
	const { page } = ctx;
	const byFile = (file: string) => ctx.examples.find((e) => path.basename(e.file) === file) as Example;
	const openWorkflow = async (example: Example) => {
		await page.goto(`${ctx.url}/workflow/${example.workflow.id}`, { waitUntil: 'domcontentloaded' });
		await page.getByTestId('canvas-node').first().waitFor({ timeout: LOAD_TIMEOUT_MS });
	};
	const canvasNode = (name: string) => page.getByTestId('canvas-node').filter({ hasText: name }).first();
	const openNode = async (name: string) => {
		await canvasNode(name).dblclick();
		await page.getByTestId('ndv').first().waitFor();
	};

	/** The public API as the owner, on the quick start running now. */
	const ownerApi = async () => rt.publicApi(ctx.url, await rt.createApiKey(await rt.login(ctx.url, ctx.owner.email, ctx.owner.password), { label: `ui ${Date.now()}` }));

	const checks: UiCheck[] = [];
	for (const example of ctx.examples) {
		const { name, nodes } = example.workflow as { name: string; nodes: rt.Json[] };
		const notes = nodes.filter((node) => node.type === STICKY_NOTE_TYPE);
		const steps = nodes.filter((node) => node.type !== STICKY_NOTE_TYPE);
		checks.push({
			name: `example "${name}" opens with its ${steps.length} nodes and its ${notes.length} sticky notes`,
			shot: `example-${path.basename(example.file, '.json')}`,
			...(EXAMPLE_PICTURES[path.basename(example.file)] ? { docImage: { name: EXAMPLE_PICTURES[path.basename(example.file)], capture: (file: string) => page.screenshot({ path: file }).then(() => undefined) } } : {}),
			async fn() {
				if (notes.length === 0) throw new Error('the example has no sticky note saying what to replace with your own data');
				await openWorkflow(example);
				for (const node of steps) await canvasNode(node.name).waitFor();
				// n8n marks a sticky note `sticky`, not `canvas-node`.
				const stickies = page.getByTestId('sticky');
				for (const note of notes) await stickies.filter({ hasText: stickyHeading(note) }).first().waitFor();
				const [shown, shownNotes] = [await page.getByTestId('canvas-node').count(), await stickies.count()];
				if (shown !== steps.length || shownNotes !== notes.length) {
					throw new Error(`the canvas shows ${shown} nodes and ${shownNotes} sticky notes; the example has ${steps.length} and ${notes.length}`);
				}
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
		name: 'the Money node shows the Payout → Create panel with its fields and the sandbox credential, and no Business Reference notice once the reference is mapped',
		shot: 'payout-create-panel',
		docImage: { name: 'payout-create', capture: (file) => page.getByTestId('ndv').first().screenshot({ path: file }).then(() => undefined) },
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
			// The reference is mapped ({{ $json.order_id }}) and nothing has run: the editor cannot resolve it yet.
			const panel = await ndv.innerText();
			for (const advice of ['Without a Business Reference', 'Map your own']) {
				if (panel.includes(advice)) throw new Error(`the panel says "${advice} …" although the Business Reference is mapped`);
			}
		},
	});

	checks.push({
		name: "the credential's Test (Retry) succeeds against the sandbox",
		shot: 'credential-test',
		docImage: { name: 'credential', capture: (file) => page.getByTestId('editCredential-modal').first().screenshot({ path: file }).then(() => undefined) },
		async fn() {
			await page.goto(`${ctx.url}/home/credentials`, { waitUntil: 'domcontentloaded' });
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
		docImage: { name: 'payout-run', capture: (file) => page.getByTestId('ndv').first().screenshot({ path: file }).then(() => undefined) },
		async fn() {
			await openWorkflow(byFile(PAY_EXAMPLE));
			await page.getByTestId('execute-workflow-button').first().click();
			await canvasNode(PAYOUT_NODE).getByTestId('canvas-node-status-success').waitFor({ timeout: LOAD_TIMEOUT_MS });
			await openNode(PAYOUT_NODE);
			const output = page.getByTestId('output-panel').first();
			// Failed payouts leave by the error output (On Error: Continue (using error output)): none here.
			await output.getByText('Success Branch (60 items)', { exact: true }).first().waitFor();
			await output.getByText('Error Branch', { exact: true }).first().waitFor();
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
	checks.push({
		name: 'running the daily-reconciliation example sends the orders and charges of yesterday to its four outputs',
		shot: 'daily-reconciliation-run',
		docImage: { name: 'reconcile-outputs', capture: (file) => page.screenshot({ path: file }).then(() => undefined) },
		async fn() {
			// Yesterday's charges are the quick start's own seeding (scripts/quick-start.ts), as a user gets them.
			const expected = DAILY_RECONCILIATION_COUNTS;
			await openWorkflow(byFile(RECONCILE_EXAMPLE));
			await page.getByTestId('execute-workflow-button').first().click();
			await canvasNode(RECONCILE_NODE).getByTestId('canvas-node-status-success').waitFor({ timeout: LOAD_TIMEOUT_MS });
			const total = expected.matched + expected.mismatched + expected.missing;
			await openNode(RECONCILE_NODE);
			const ndv = page.getByTestId('ndv').first();
			await ndv.getByText(`${total} items`, { exact: true }).first().waitFor();
			for (const output of ['Matched', 'Mismatched', 'Missing in API', 'Unexpected in API']) {
				await ndv.getByText(output).first().waitFor();
			}
			await page.keyboard.press('Escape');
			await ndv.waitFor({ state: 'hidden' });
			await page.keyboard.press('1'); // zoom to fit: every output with its item count
			// The run as n8n saved it: each output holds the items the seeding makes it hold.
			const api = await ownerApi();
			const [latest] = await api.listExecutions({ workflowId: byFile(RECONCILE_EXAMPLE).workflow.id, limit: 1, includeData: false });
			const run = await api.settledExecution(latest.id);
			const counts = [0, 1, 2, 3].map((output) => (rt.nodeOutput(run, RECONCILE_NODE, { output }) || []).length);
			const want = [expected.matched, expected.mismatched, expected.missing, expected.unexpected];
			if (counts.join() !== want.join()) throw new Error(`the run's Matched, Mismatched, Missing in API and Unexpected in API outputs hold ${counts.join(', ')} items; expected ${want.join(', ')}`);
		},
	});

	/** A payout refused before any request, run in the editor: the error names the field as the panel does, and nothing reaches the sandbox. */
	const fieldErrorCheck = (refused: { node: string; shot: string; parameters: rt.Json; message: string; field: string; notField?: string }): UiCheck => ({
		name: `a refused parameter shows in the error as the field the panel names ("In or underneath Parameter": ${refused.field}), never "Could not find parameter"${refused.notField ? ` nor ${refused.notField}` : ''}`,
		shot: refused.shot,
		async fn() {
			const api = await ownerApi();
			const created = await api.createWorkflow({
				name: `UI: ${refused.node}`,
				nodes: [
					{ id: 'f1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					{
						id: 'f2',
						name: refused.node,
						type: 'n8n-nodes-money.money',
						typeVersion: 1,
						position: [240, 0],
						parameters: { resource: 'payout', operation: 'create', amount: 1000, beneficiaryIdentifierType: 'gm_account', beneficiaryIdentifier: 'GM-1001', ...refused.parameters },
						credentials: { moneyApi: { id: ctx.credential.id, name: ctx.credential.name } },
					},
				],
				connections: { Start: { main: [[{ node: refused.node, type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			});
			const before = (await ctx.sandbox.control.ledger()).payouts.length;
			await openWorkflow({ file: 'ui', workflow: created });
			await page.getByTestId('execute-workflow-button').first().click();
			await page.getByText(`Problem in node ‘${refused.node}‘`).first().waitFor({ timeout: LOAD_TIMEOUT_MS });
			await openNode(refused.node);
			const output = page.getByTestId('output-panel').first();
			await output.getByText(refused.message, { exact: false }).first().waitFor();
			const details = output.locator('.node-error-view__details-summary').first();
			if (await details.isVisible()) await details.click();
			const row = output.locator('.node-error-view__details-row').filter({ hasText: 'In or underneath Parameter' }).first();
			await row.waitFor();
			const shown = (await row.innerText()).replace(/\s+/g, ' ').trim();
			if (!shown.endsWith(refused.field)) throw new Error(`the error's parameter row reads "${shown}"; expected it to name ${refused.field}`);
			if (refused.notField && shown.includes(refused.notField)) throw new Error(`the error's parameter row reads "${shown}": the field of the other party`);
			if ((await output.innerText()).includes('Could not find parameter')) throw new Error('the error view says "Could not find parameter"');
			const after = (await ctx.sandbox.control.ledger()).payouts.length;
			if (after !== before) throw new Error(`the refused payout reached the sandbox (${before} payouts before, ${after} after)`);
		},
	});
	checks.push(
		fieldErrorCheck({
			node: 'Message too long',
			shot: 'field-error',
			parameters: { businessReference: 'ui-field-error-1', additionalFields: { message: '={{ "x".repeat(300) }}' } },
			message: 'Message (message) must be at most 255 characters',
			field: 'Additional Fields > Message',
		}),
		// Both parties' fields are the node's parameters: the editor names the field by the first parameter of its name.
		fieldErrorCheck({
			node: 'Account type missing',
			shot: 'field-error-party',
			parameters: { beneficiaryIdentifierType: 'phone', beneficiaryIdentifier: '+22890000001', channel: 'platform', businessReference: 'ui-field-error-2' },
			message: 'Beneficiary Account Type (beneficiary_account_type) is required',
			field: 'Beneficiary Account Type',
			notField: 'Payer',
		}),
	);

	checks.push({
		name: 'a new Payout → Create given only an amount and a beneficiary of the default identifier type runs',
		shot: 'defaults-run',
		async fn() {
			const api = await ownerApi();
			const name = 'Pay with the defaults';
			const created = await api.createWorkflow({
				name: 'UI: a create on its defaults',
				nodes: [
					{ id: 'd1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					{
						id: 'd2',
						name,
						type: 'n8n-nodes-money.money',
						typeVersion: 1,
						position: [240, 0],
						// What the editor saves of a node added and given an amount and a beneficiary: the parameters set, the rest at their defaults.
						parameters: { resource: 'payout', operation: 'create', amount: '1000', beneficiaryIdentifier: 'GM-1002' },
						credentials: { moneyApi: { id: ctx.credential.id, name: ctx.credential.name } },
					},
				],
				connections: { Start: { main: [[{ node: name, type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			});
			const before = (await ctx.sandbox.control.ledger()).payouts.length;
			await openWorkflow({ file: 'ui', workflow: created });
			await page.getByTestId('execute-workflow-button').first().click();
			await canvasNode(name).getByTestId('canvas-node-status-success').waitFor({ timeout: LOAD_TIMEOUT_MS });
			const after = (await ctx.sandbox.control.ledger()).payouts.length;
			if (after !== before + 1) throw new Error(`the sandbox held ${before} payouts before the run and ${after} after; expected one more`);
		},
	});

	checks.push({
		name: 'a restart of the quick start on the same data folder keeps an edit made to an example, and seeds nothing twice',
		shot: 'restart-keeps-edit',
		async fn() {
			const example = byFile(PAY_EXAMPLE);
			const id = example.workflow.id;
			const api = await ownerApi();
			const stored = await api.getWorkflow(id);
			const nodes = (stored.nodes as rt.Json[]).map((node) =>
				node.type === STICKY_NOTE_TYPE && !node.parameters.content.includes(EDIT_MARK)
					? { ...node, parameters: { ...node.parameters, content: `${node.parameters.content}\n\n**${EDIT_MARK}**` } }
					: node,
			);
			const name = `${stored.name} (edited)`;
			await api.call('PUT', `/workflows/${id}`, { name, nodes, connections: stored.connections, settings: example.workflow.settings });
			const chargesBefore = (await ctx.sandbox.control.ledger()).charges.length;

			const restarted = await ctx.restart();

			const after = await (await ownerApi()).getWorkflow(id);
			if (after.name !== name) throw new Error(`after the restart the example is named "${after.name}", edited to "${name}"`);
			const edited = (after.nodes as rt.Json[]).filter((node) => node.type === STICKY_NOTE_TYPE && String(node.parameters.content).includes(EDIT_MARK));
			if (edited.length !== nodes.filter((node) => node.type === STICKY_NOTE_TYPE).length) throw new Error('after the restart the edited sticky notes are back to their shipped text');
			const statuses = ctx.examples.map((e) => `${path.basename(e.file)}: ${e.status}`);
			if (ctx.examples.some((e) => e.status !== 'kept')) throw new Error(`after the restart: ${statuses.join(', ')}; every example should be kept`);
			if (restarted.seededReconciliation) throw new Error("the restart seeded yesterday's charges again");
			const chargesAfter = (await ctx.sandbox.control.ledger()).charges.length;
			if (chargesAfter !== chargesBefore) throw new Error(`the sandbox held ${chargesBefore} charges before the restart and ${chargesAfter} after`);
			// And the editor shows the edit.
			await openWorkflow(example);
			await page.getByText(EDIT_MARK).first().waitFor();
			await page.getByText(name, { exact: true }).filter({ visible: true }).first().waitFor();
		},
	});
	return checks;
}
