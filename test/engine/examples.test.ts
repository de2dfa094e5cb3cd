import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import {
	buildWorkflow,
	CREDENTIAL_TYPE,
	credentialFromSandbox,
	type Engine,
	loadEngine,
	REPO_ROOT,
	runWorkflow,
} from '../harness/engine';
import { findSecrets } from '../harness/secrets';
import { seedDailyReconciliation } from '../fixtures/daily-reconciliation';

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
}

function example(file: string): ExampleWorkflow {
	return JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples', file), 'utf8')) as ExampleWorkflow;
}

function exampleCredentialId(workflow: ExampleWorkflow): string {
	const withCredential = workflow.nodes.find((node) => node.credentials?.[CREDENTIAL_TYPE]);
	return withCredential!.credentials![CREDENTIAL_TYPE].id!;
}

describe('example workflows run as shipped', () => {
	let engine: Engine;
	let sandbox: Sandbox;

	beforeAll(async () => {
		engine = await loadEngine([
			'n8n-nodes-base.set',
			'n8n-nodes-base.splitOut',
			'n8n-nodes-base.merge',
			'n8n-nodes-base.summarize',
			'n8n-nodes-base.scheduleTrigger',
			'n8n-nodes-base.stickyNote',
		]);
		sandbox = await startSandbox({ finalizeAfterMs: null });
	});

	afterAll(async () => sandbox?.close());

	it('pays a list of 60 beneficiaries once, paced to the velocity limit, even when the whole workflow is run again', async () => {
		const definition = example('pay-beneficiaries.json');
		// A velocity window made small (10 payouts per rolling second) so the paced run stays short.
		await sandbox.control.updateClient(sandbox.info.clientId, { limits: { velocityLimit: 10, velocityWindowSeconds: 1 } });
		const credential = credentialFromSandbox(sandbox.info, { velocityLimit: 10, velocityWindowSeconds: 1 });
		engine.credentials.set(exampleCredentialId(definition), CREDENTIAL_TYPE, credential);
		const workflow = buildWorkflow(engine, definition);

		const first = await runWorkflow(engine, workflow, { startNode: 'Start payout run' });
		const again = await runWorkflow(engine, workflow, { startNode: 'Start payout run' });

		const paid = first.output('Send payout');
		expect(first.error()).toBeUndefined();
		expect(paid).toHaveLength(60);
		for (const item of paid) expect(item.json).toMatchObject({ outcome: 'created', status: 'PENDING', reference: expect.any(String) });
		// n8n's table shows top-level keys as columns: what happened, to whom, how much, the reference, first.
		expect(new Set(paid.map((item) => Object.keys(item.json).join()))).toEqual(
			new Set(['outcome,status,beneficiary_identifier,beneficiary_identifier_type,beneficiary_account_type,amount,currency,channel,business_reference,reference,resource,idempotency_key']),
		);
		expect(again.output('Send payout').map((item) => [item.json.outcome, item.json.status])).toEqual(paid.map(() => ['replayed', null]));
		expect(new Set(paid.map((item) => item.json.reference)).size).toBe(60);
		expect(again.output('Send payout').map((item) => item.json.reference)).toEqual(
			paid.map((item) => item.json.reference),
		);
		expect(first.output('Send payout', 1)).toEqual([]);
		const payouts = (await sandbox.control.ledger()).payouts;
		expect(payouts).toHaveLength(60);
		expect((await sandbox.control.counters()).rejected).toBe(0);
		expect(findSecrets([first.run, again.run], { pin: sandbox.info.pin, clientSecret: sandbox.info.clientSecret, hmacSecret: sandbox.info.hmacSecret })).toEqual([]);
	});

	it('sends the rows it cannot pay to the failed-payouts node, each with its row, its Business Reference and the error', async () => {
		const definition = example('pay-beneficiaries.json');
		engine.credentials.set(exampleCredentialId(definition), CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info, { velocityLimit: 10, velocityWindowSeconds: 1 }));
		const rows = [
			{ order_id: 'BAD-1', beneficiary: 'GM-1002', identifier_type: 'gm_account', account_type: '', amount: 'abc', note: 'not a number' },
			{ order_id: 'BAD-2', beneficiary: '12ab', identifier_type: 'phone', account_type: 'Driver', amount: 1000, note: 'not a phone' },
			{ order_id: 'GOOD-1', beneficiary: 'GM-1003', identifier_type: 'gm_account', account_type: '', amount: 1000, note: 'paid' },
		];
		const nodes = definition.nodes.map((node) =>
			node.name === 'Beneficiaries (replace with your sheet)' ? { ...node, parameters: { ...node.parameters, jsonOutput: JSON.stringify({ rows }) } } : node,
		);
		const result = await runWorkflow(engine, buildWorkflow(engine, { ...definition, nodes }), { startNode: 'Start payout run' });

		expect(result.error()).toBeUndefined();
		expect(result.output('Send payout').map((item) => item.json.business_reference)).toEqual(['GOOD-1']);
		const failed = result.output('Failed payouts (check them, fix, run again)').map((item) => item.json);
		const errors = failed.map((item) => item.error as IDataObject);
		expect(failed.map((item, index) => [item.order_id, item.beneficiary, item.amount, errors[index].business_reference])).toEqual([
			['BAD-1', 'GM-1002', 'abc', 'BAD-1'],
			['BAD-2', '12ab', 1000, 'BAD-2'],
		]);
		expect(errors[0].message).toMatch(/^Amount \(amount\)/);
		expect(errors[1].message).toMatch(/^Beneficiary Identifier \(beneficiary_identifier.identifier\)/);
		expect(errors[1]).toMatchObject({
			outcome: 'failed',
			beneficiary_identifier: '12ab',
			beneficiary_identifier_type: 'phone',
			beneficiary_account_type: 'Driver',
			amount: 1000,
			currency: 'XOF',
			channel: 'psp-a-tg',
			business_reference: 'BAD-2',
			attempted: false,
		});
	});

	it("reconciles yesterday's orders against yesterday's charges and routes the problems to the notification", async () => {
		const definition = example('daily-reconciliation.json');
		engine.credentials.set(exampleCredentialId(definition), CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info));
		const counts = await seedDailyReconciliation(sandbox.control);

		// Togo's time zone is UTC, so "yesterday" of the workflow is yesterday in UTC.
		const workflow = buildWorkflow(engine, { ...definition, timezone: 'Africa/Lome' });
		const result = await runWorkflow(engine, workflow, { startNode: 'Run now' });

		expect(result.error()).toBeUndefined();
		const reconcile = "Reconcile yesterday's charges";
		const perOutput = [0, 1, 2, 3].map((output) => result.output(reconcile, output).length);
		expect(perOutput).toEqual([counts.matched, counts.mismatched, counts.missing, counts.unexpected]);
		expect(result.output('Paid orders (mark them paid in your shop)').map((item) => (item.json.record as { order_id: string }).order_id)).toEqual(['ORD-1001', 'ORD-1005']);

		const notified = result.run.data.resultData.runData['Notify accounting (stands for Slack or email)'].flatMap((run) => run.data!.main[0]!);
		const texts = notified.map((item) => item.json.text);
		expect(texts).toHaveLength(counts.mismatched + counts.missing + counts.unexpected);
		expect(texts).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/^MISMATCHED: order ORD-1002, charge \S+; amount expected 3000, API has 3500$/),
				expect.stringMatching(/^MISMATCHED: order ORD-1003, charge \S+; status expected COMPLETED, API has FAILED$/),
				'MISSING: order ORD-1004, charge (none in the API)',
				expect.stringMatching(/^UNEXPECTED: order \(no record\), charge \S+$/),
			]),
		);

		const [report] = result.output('Daily report CSV (attach to an email or upload)');
		expect(report.json.counts).toEqual(counts);
		expect(report.binary?.data.mimeType).toBe('text/csv');
	});

	it('ships a fulfilment workflow whose trigger listens for completed charges only, backed by a backstop poll', () => {
		const definition = example('fulfil-order-on-charge.json');
		const trigger = definition.nodes.find((node) => node.type === 'n8n-nodes-money.moneyTrigger')!;
		expect(trigger.parameters).toMatchObject({ resources: ['charge'], statuses: ['COMPLETED'] });
		expect(definition.connections[trigger.name]).toBeDefined();
		const backstop = definition.nodes.find((node) => node.type === 'n8n-nodes-money.moneyPollTrigger')!;
		expect(backstop.parameters).toMatchObject({ backstop: true, moneyTrigger: trigger.name, resource: 'charge', statuses: ['COMPLETED'] });
		expect(backstop.credentials).toEqual(trigger.credentials);
		expect(definition.connections[backstop.name]).toBeUndefined();
	});
});
