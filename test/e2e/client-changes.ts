/**
 * A Retry after the API client changed (docs/idempotency.md, "A run keeps its API client and Business References"): a
 * payout run pays rows 1-2 on the sandbox's first client and fails on row 3 (the wallet ran dry);
 * the user then points the run at the sandbox's second client (another merchant), either by
 * editing the credential (another client id and secrets) or by switching the node to another
 * credential, and retries the execution with the original or the currently saved workflow, with
 * and without a Business Reference. The API scopes idempotency keys per client, so rows 1-2 sent
 * again to the second client would be paid a second time. Run by scripts/e2e.ts.
 */

import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';

import type { Json } from '../../scripts/n8n';
import { moneyCredentialFor } from '../../sandbox/control/credential';
import { BENEFICIARY, keyedWorkflows, type CasePart, type Check, type E2eContext, uniqueAmount } from './case-setup';
import { amountSource, rerunTools, rowNodes } from './rerun-tools';
import { CREDENTIAL_TYPE, money, node, type CredentialRef, type WorkflowNode } from './workflows';

const PAY = 'Pay';
const UNPACED = { velocityLimit: 10_000, velocityWindowSeconds: 1 };
const VARIANTS = [
	{ key: 'Orig', loadWorkflow: false, label: 'original workflow' },
	{ key: 'Saved', loadWorkflow: true, label: 'currently saved workflow' },
];
const REFERENCES = [
	{ key: 'NoRef', withReference: false },
	{ key: 'Ref', withReference: true },
];

export function build(ctx: E2eContext): CasePart {
	const { control, info } = ctx.sandbox;
	const second = info.otherClients[0];
	const tools = rerunTools(ctx);
	const { ids, wf } = keyedWorkflows('e2eCli');
	const amount = amountSource(98_000);
	const run = crypto.randomBytes(3).toString('hex');
	const firstClient = moneyCredentialFor(info, UNPACED);
	const secondClient = moneyCredentialFor({ ...info, ...second }, UNPACED);

	const credentials: NonNullable<CasePart['credentials']> = [];
	const credential = (id: string, name: string, data: Record<string, unknown>): CredentialRef => {
		credentials.push({ id, name, type: CREDENTIAL_TYPE, data });
		return { id, name };
	};
	const switchTo = credential('e2eCliSecondClient', `Money sandbox, ${second.clientId} (e2e)`, secondClient);

	/** One payout run per case: four rows, the third more than the first client's wallet will hold. */
	const cases = ['Edit', 'Switch'].flatMap((change) =>
		VARIANTS.flatMap((variant) =>
			REFERENCES.map((reference) => {
				const key = `${change}${variant.key}${reference.key}`;
				const amounts = [amount(), amount(), uniqueAmount(960_000 + crypto.randomInt(0, 1000)), amount()];
				const cred = credential(`e2eCli${key}`.slice(0, 21), `Money sandbox ${key} (e2e)`, firstClient);
				const rows = amounts.map((value) => ({ amount: value, order: `cli-${run}-${value}` }));
				const pay = money.create('payout', { amount: '={{ $json.amount }}', identifier: BENEFICIARY, ...(reference.withReference ? { businessReference: '={{ $json.order }}' } : {}), options: { maxRetries: 0 } });
				return { key, change, variant, reference, amounts, cred, nodes: [node.manualTrigger(), ...rowNodes(rows), node.money(PAY, pay, { cred })] };
			}),
		),
	);
	const workflows = cases.map((entry) => wf(entry.key, `e2e payout run, API client ${entry.change === 'Edit' ? 'edited' : 'switched'} before a Retry (${entry.variant.label}, ${entry.reference.withReference ? 'with' : 'without'} Business Reference)`, entry.nodes));

	/** Payouts of `amounts` on both clients' ledgers. */
	async function paidOn(amounts: number[]) {
		const [first, other] = await Promise.all([control.ledger(), control.ledger(second.clientId)]);
		const pick = (entries: typeof first.payouts) => entries.filter((entry) => amounts.includes(Math.abs(entry.amount.value))).map((entry) => Math.abs(entry.amount.value));
		return { first: pick(first.payouts), second: pick(other.payouts) };
	}

	async function failChangeRetry(entry: (typeof cases)[number]) {
		const { amounts } = entry;
		await control.updateClient(info.clientId, { balance: amounts[0] + amounts[1] + 10_000 });
		const failed = await ctx.run(ids[entry.key], { expectError: true });
		assert.match(String(failed.error && failed.error.message), /INSUFFICIENT_FUNDS/);
		assert.deepEqual((await paidOn(amounts)).first.sort(), amounts.slice(0, 2).sort(), 'rows 1-2 paid on the first client before the change');
		if (entry.change === 'Edit') {
			const res = await ctx.session.request('PATCH', `/rest/credentials/${entry.cred.id}`, { name: entry.cred.name, type: CREDENTIAL_TYPE, data: secondClient });
			assert.equal(res.status, 200, `editing the credential answered ${res.status}: ${res.text.slice(0, 300)}`);
		} else {
			const saved = await ctx.api.getWorkflow(ids[entry.key]);
			saved.nodes.find((n: WorkflowNode) => n.name === PAY).credentials = { [CREDENTIAL_TYPE]: { id: switchTo.id, name: switchTo.name } };
			await ctx.api.call('PUT', `/workflows/${ids[entry.key]}`, { name: saved.name, nodes: saved.nodes, connections: saved.connections, settings: saved.settings });
		}
		await control.updateClient(info.clientId, { balance: 100_000_000 });
		const retried = await tools.retry(failed.execution.id, entry.variant.loadWorkflow);
		const paid = await paidOn(amounts);
		const all = [...paid.first, ...paid.second];
		return {
			status: retried.status,
			error: (retried.error || '').slice(0, 300),
			description: retried.errorDescription || '',
			outcomes: (retried.output(PAY) as Json[]).map((item) => item.outcome),
			paidTwice: amounts.filter((value) => all.filter((entry) => entry === value).length > 1).map((value) => amounts.indexOf(value) + 1),
			onSecondClient: amounts.filter((value) => paid.second.includes(value)).map((value) => amounts.indexOf(value) + 1),
		};
	}

	/** Runs the four cases of one change; each Retry that reaches the second client must pay no row twice and say where the rows went. */
	async function checkChange(change: 'Edit' | 'Switch') {
		const reports: Record<string, unknown> = {};
		await tools.withRoomyClient(async () => {
			await control.updateClient(second.clientId, { limits: { ...UNPACED, dailyCap: 5_000_000_000, monthlyCap: 50_000_000_000 }, balance: 100_000_000 });
			for (const entry of cases.filter((candidate) => candidate.change === change)) reports[entry.key] = await failChangeRetry(entry);
		});
		const brief = Object.fromEntries(Object.entries(reports).map(([key, report]) => [key, { ...(report as object), error: String((report as { error: string }).error).slice(0, 60), description: undefined }]));
		ctx.note(`API client ${change === 'Edit' ? 'edited' : 'switched'} before a Retry: ${JSON.stringify(brief)}`);
		for (const [key, report] of Object.entries(reports) as Array<[string, Awaited<ReturnType<typeof failChangeRetry>>]>) {
			assert.deepEqual(report.paidTwice, [], `${key}: ${JSON.stringify(report)}`);
			if (change === 'Switch' && key.includes('Orig')) {
				// The original workflow still names the first credential: the Retry completes the run there.
				assert.deepEqual({ status: report.status, outcomes: report.outcomes, onSecondClient: report.onSecondClient }, { status: 'success', outcomes: ['replayed', 'replayed', 'created', 'created'], onSecondClient: [] }, key);
			} else {
				assert.equal(report.status, 'error', `${key}: ${JSON.stringify(report)}`);
				assert.match(report.error, new RegExp(`the credential now goes to the Money API client ${second.clientId} at .*, the run first went to client ${info.clientId} at `), key);
				assert.match(report.description, /credential/, key);
				assert.deepEqual(report.onSecondClient, [], key);
			}
		}
	}

	const checks: Check[] = [
		{
			name: 'client: Retry (original and saved workflow, with and without Business Reference) after the credential was edited to another API client pays no row twice and names the client the rows went to',
			fn: () => checkChange('Edit'),
		},
		{
			name: 'client: Retry (original and saved workflow, with and without Business Reference) after the node was switched to a credential of another API client pays no row twice and names the client the rows went to',
			fn: () => checkChange('Switch'),
		},
	];
	return { workflows, checks, credentials };
}
