import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, PollContext } from 'n8n-core';
import type { IDataObject, INode, INodeType, IWorkflowBase } from 'n8n-workflow';

import { additionalDataFor, buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, MONEY_POLL_TRIGGER, type Engine } from '../../harness/engine';
import { pollTriggerSetup } from './support';

interface Posted {
	event?: { data: { reference: string } };
	checkpoint?: { at: number; state: unknown };
}

/** The Money Trigger's Production URL: answers every hand-over as the trigger (its header) with `refusal` or 200, and records it. */
async function triggerUrl(refusal?: { status: number; error: string }): Promise<{ url: string; posts: Posted[]; server: Server }> {
	const posts: Posted[] = [];
	const server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk) => (body += chunk));
		request.on('end', () => {
			posts.push(JSON.parse(body).backstop as Posted);
			response.setHeader('x-money-trigger', 'money-trigger');
			response.setHeader('content-type', 'application/json; charset=utf-8');
			response.statusCode = refusal?.status ?? 200;
			response.end(JSON.stringify(refusal ? { success: false, error: refusal.error } : {}));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/x/money`, posts, server };
}

/** One activation in one n8n process: one PollContext for the first poll and every scheduled one, as n8n-core makes it. */
function activation(engine: Engine, node: INode, workflowId: string, staticData: IDataObject) {
	const workflow = buildWorkflow(engine, { nodes: [node], id: workflowId, staticData });
	const executionId = randomUUID();
	const hooks = new ExecutionLifecycleHooks('trigger', executionId, { id: workflowId, name: 'backstop', nodes: [], connections: {} } as unknown as IWorkflowBase);
	const context = new PollContext(workflow, node, additionalDataFor(engine, hooks, executionId), 'trigger', 'init', () => {
		throw new Error('a backstop never emits');
	});
	const nodeType = engine.nodeTypes.getByNameAndVersion(node.type, node.typeVersion) as INodeType;
	return async () => await (nodeType.poll as NonNullable<INodeType['poll']>).call(context);
}

const backstopNode = (): INode => ({
	id: 'backstop-node',
	name: 'Backstop',
	type: MONEY_POLL_TRIGGER,
	typeVersion: 1,
	position: [0, 0],
	parameters: { backstop: true, moneyTrigger: 'Money Trigger', gracePeriodMinutes: 0, resource: 'charge', statuses: ['COMPLETED'] },
	credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Money API account' } },
});

describe('Money Poll Trigger as a backstop: the first poll of an activation', () => {
	const { env } = pollTriggerSetup();

	// n8n-core gives the answer's JSON body parsed, though the request asks for none: before, the
	// trigger's error code was read from text only, and every waiting event was posted at every poll.
	it('stops at the first event a Money Trigger that cannot read its credential refuses (503 receiver-unavailable, as n8n-core hands it over)', async () => {
		const trigger = await triggerUrl({ status: 503, error: 'receiver-unavailable' });
		try {
			const staticData = { global: { moneyTriggerMemory: { writer: 'process:1', nodes: {}, triggers: { 'Money Trigger': { url: trigger.url, node: 'trigger-node' } }, backstops: {} } } };
			const poll = activation(env.engine, backstopNode(), 'wf-unavailable', staticData);
			expect(await poll()).toBeNull();
			for (let each = 0; each < 4; each++) await env.sandbox.control.setStatus(await env.api.create('charge'), 'COMPLETED');
			expect(await poll()).toBeNull();
			expect(trigger.posts.filter((post) => post.event)).toHaveLength(1);
		} finally {
			trigger.server.close();
		}
	});

	it('hands its state over though no event: a completion whose delivery was dropped before a restart that came before the first scheduled poll is handed over after it', async () => {
		const trigger = await triggerUrl();
		try {
			const node = backstopNode();
			const memory = (backstops: IDataObject = {}) => ({ global: { moneyTriggerMemory: { writer: 'process:1', nodes: {}, triggers: { 'Money Trigger': { url: trigger.url, node: 'trigger-node' } }, backstops } } });
			// Published: n8n runs the first poll inside the publication.
			expect(await activation(env.engine, node, 'wf-published', memory())()).toBeNull();
			const kept = trigger.posts.filter((post) => post.checkpoint).at(-1)?.checkpoint;
			expect(kept).toBeDefined();

			const reference = await env.api.create('charge');
			await env.sandbox.control.setStatus(reference, 'COMPLETED');

			// Another process (a restart) with the static data as the Money Trigger saved it (another id: nothing of the first process).
			const poll = activation(env.engine, node, 'wf-restarted', memory({ [node.id]: kept as IDataObject }));
			for (let each = 0; each < 3; each++) expect(await poll()).toBeNull();
			expect(trigger.posts.filter((post) => post.event).map((post) => post.event!.data.reference)).toEqual([reference]);
		} finally {
			trigger.server.close();
		}
	});
});
