import type { INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { buildWorkflow, CREDENTIAL_ID, type Engine, MONEY_NODE, moneyNode, type RunResult, runWorkflow } from '../../harness/engine';
import { CONTINUE, FAST, type Parameters, useMoneyNode } from './setup';

/*
 * What the Money node does whatever the operation: it refuses bad input before any request, refreshes a
 * revoked token on its own, and moves no money in tool mode unless allowed and under the maximum.
 */
const env = useMoneyNode();
const { run, json, payout } = env;

describe('Money node against the sandbox', () => {
	describe('refusals before any request', () => {
		async function createRequests(): Promise<number> {
			const counters = await env.sb.control.counters();
			return (counters.requests.post_money_v1_charge ?? 0) + (counters.requests.post_money_v1_payout ?? 0);
		}

		it.each([
			['a text file', Buffer.from('just some text, not a receipt')],
			['a 2 MB + 1 byte PDF', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2 * 1024 * 1024 + 1 - 9, 0x20)])],
		])('refuses %s as payment reference document', async (_name, bytes) => {
			const before = await createRequests();
			const result = await run(
				payout({ additionalFields: { paymentReferenceDocumentField: 'data' } }),
				{ items: [{ json: {}, binary: { data: { data: bytes.toString('base64'), mimeType: 'application/pdf' } } }], settings: CONTINUE },
			);
			expect(json(result)).toMatchObject({ field: 'payment_reference.ref_document' });
			expect(await createRequests()).toBe(before);
		});

		it.each([
			[{ amount: 12.5 }, 'amount'],
			[{ amount: 0 }, 'amount'],
			[{ beneficiaryIdentifierType: 'phone', beneficiaryIdentifier: '90000001x', beneficiaryAccountType: 'Client' }, 'beneficiary_identifier.identifier'],
			[{ beneficiaryIdentifierType: 'phone', beneficiaryIdentifier: '+22890000001', channel: 'platform', beneficiaryAccountType: '={{ "" }}' }, 'beneficiary_account_type'],
			[{ additionalFields: { message: 'x'.repeat(256) } }, 'message'],
			[{ beneficiaryIdentifierType: 'bank_account' }, 'beneficiary_identifier.type'],
		])('refuses %j naming %s', async (overrides, field) => {
			const before = await createRequests();
			const item = json(await run(payout(overrides), { settings: CONTINUE }));
			expect(item.field).toBe(field);
			expect(await createRequests()).toBe(before);
		});

		it('stops the workflow with the field named when Continue On Fail is off', async () => {
			const result = await run(payout({ amount: -5 }));
			expect(result.error()?.message).toContain('Amount (amount)');
		});
	});

	describe('revoked token', () => {
		it('refreshes the token transparently', async () => {
			json(await run({ resource: 'account', operation: 'get', options: FAST }));
			const tokenBefore = env.engine.credentials.stored(CREDENTIAL_ID).accessToken;
			const requestsBefore = (await env.sb.control.counters()).tokenRequests;
			await env.sb.control.revokeTokens();
			const item = json(await run({ resource: 'account', operation: 'get', options: FAST }));
			expect(item.id).toBeDefined();
			expect((await env.sb.control.counters()).tokenRequests).toBe(requestsBefore + 1);
			expect(env.engine.credentials.stored(CREDENTIAL_ID).accessToken).not.toBe(tokenBefore);
		});
	});

	describe('tool mode', () => {
		function toolEngine(): Engine {
			const toolName = `${MONEY_NODE}Tool`;
			const base = env.engine.nodeTypes.getByNameAndVersion(MONEY_NODE, 1);
			const tool = Object.create(base) as INodeType;
			tool.description = { ...base.description, name: 'moneyTool' };
			const nodeTypes: INodeTypes = {
				getByName: (name: string) => (name === toolName ? tool : env.engine.nodeTypes.getByName(name)) as INodeType | IVersionedNodeType,
				getByNameAndVersion: (name: string, version?: number) =>
					name === toolName ? tool : NodeHelpers.getVersionedNodeType(env.engine.nodeTypes.getByName(name), version),
				getKnownTypes: () => ({}),
			};
			return { ...env.engine, nodeTypes };
		}

		async function runTool(parameters: Parameters): Promise<RunResult> {
			const tools = toolEngine();
			const node = { ...moneyNode({ parameters: parameters as never, settings: CONTINUE }), type: `${MONEY_NODE}Tool` };
			return env.remember(await runWorkflow(tools, buildWorkflow(tools, { nodes: [node] })));
		}

		it('refuses money movement unless switched on, and above the maximum', async () => {
			const before = (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
			expect(String(json(await runTool(payout())).error)).toContain('turned off');
			expect(
				String(json(await runTool(payout({ allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000 }))).error),
			).toContain('above the Maximum Amount');
			expect((await env.sb.control.counters()).requests.post_money_v1_payout ?? 0).toBe(before);

			const allowed = json(await runTool(payout({ amount: 900, allowMoneyMovementInToolMode: true, maxAmountInToolMode: 1000 })));
			expect(allowed.reference).toBeDefined();
			expect(json(await runTool({ resource: 'account', operation: 'get', options: FAST })).id).toBeDefined();
		});
	});
});
