import type { IPollFunctions } from 'n8n-workflow';

import { backstopState, firstPollOf, handOver, sortEvents } from '../../../nodes/MoneyPollTrigger/polling/backstop';
import { MoneyPollTrigger } from '../../../nodes/MoneyPollTrigger/MoneyPollTrigger.node';
import { ANSWERED_BY_TRIGGER_HEADER } from '../../../nodes/events/backstop';
import { parseState } from '../../../nodes/MoneyPollTrigger/polling/state';
import { buildEventItem, type MoneyEventItem } from '../../../nodes/events/item';
import type { TransactionResource } from '../../../nodes/api/values';
import { transactionHash } from '../../../nodes/MoneyTrigger/memory/statuses';
import { WorkflowMemory, workflowMemory } from '../../../nodes/MoneyTrigger/memory/workflowMemory';

const GRACE_MS = 5 * 60_000;

function event(reference: string | null, status = 'COMPLETED', resource: TransactionResource = 'charge'): MoneyEventItem {
	return buildEventItem({ id: `poll_${reference}_${status.toLowerCase()}`, source: 'poll', resource, envelope: { reference, status: { code: 2, label: status } } });
}

const keys = (list: Array<{ event: MoneyEventItem }>) => list.map((each) => `${each.event.resource}:${each.event.reference}:${each.event.status}`);

describe('which events a backstop poll hands over', () => {
	it('hands over an event once the grace period has passed since the poll first saw it, and keeps the others waiting with that moment', () => {
		const memory = new WorkflowMemory(false);
		const state = parseState({ handOver: [{ event: event('CH-old'), seenAt: 0 }, { event: event('CH-recent'), seenAt: 100_000 }] });
		const { due, waiting } = sortEvents(state, [event('CH-new'), event('CH-old')], memory, 'trigger', GRACE_MS, GRACE_MS);
		expect(keys(due)).toEqual(['charge:CH-old:COMPLETED']);
		expect(waiting).toEqual([
			{ event: event('CH-recent'), seenAt: 100_000 },
			{ event: event('CH-new'), seenAt: GRACE_MS },
		]);
	});

	it('hands over nothing the named Money Trigger came with, nor a stale PENDING, nor an event without a reference', () => {
		const memory = new WorkflowMemory(false);
		memory.node('trigger').advance(transactionHash('charge:CH-1'), 'COMPLETED');
		const { due, waiting } = sortEvents(parseState({}), [event('CH-1'), event('CH-1', 'PENDING'), event(null), event('CH-1', 'REVERSED')], memory, 'trigger', 0, 0);
		expect(keys(due)).toEqual(['charge:CH-1:REVERSED']);
		expect(waiting).toEqual([]);
	});

	it('hands over what another Money Trigger of the workflow came with: it judges its own events (a reference both credentials use)', () => {
		const memory = new WorkflowMemory(false);
		memory.node('other trigger').advance(transactionHash('charge:CH-1'), 'COMPLETED');
		expect(keys(sortEvents(parseState({}), [event('CH-1')], memory, 'trigger', 0, 0).due)).toEqual(['charge:CH-1:COMPLETED']);
	});

	it('tells a charge and a payout with the same reference and status apart (the poll names both poll_<reference>_<status>)', () => {
		const { due } = sortEvents(parseState({}), [event('X-1', 'COMPLETED', 'charge'), event('X-1', 'COMPLETED', 'payout')], new WorkflowMemory(false), 'trigger', 0, 0);
		expect(keys(due)).toEqual(['charge:X-1:COMPLETED', 'payout:X-1:COMPLETED']);
	});

	it('hands over the events a poll of the Poll Trigger could not have n8n start, when it was not yet a backstop', () => {
		const state = parseState({ retry: [event('CH-9')] });
		expect(keys(sortEvents(state, [], new WorkflowMemory(false), 'trigger', 0, 0).due)).toEqual(['charge:CH-9:COMPLETED']);
	});
});

/** A backstop poll's context: the API lists nothing new, the Money Trigger answers as `answer` says (a status, or a status and its error code). */
function backstopContext(
	workflowId: string,
	answer: (body: { backstop: { event?: { data: { reference: string } } } }) => number | { status: number; error: string },
	credentials: () => Promise<object> = async () => ({ webhookSecret: 'secret' }),
) {
	const posts: string[] = [];
	const checkpoints: Array<{ cursors: Record<string, number>; handOver?: Array<{ event: MoneyEventItem }> }> = [];
	const reported: string[] = [];
	const remedies: string[] = [];
	const parameters: Record<string, unknown> = { backstop: true, moneyTrigger: 'Money Trigger', gracePeriodMinutes: 0, resource: 'charge', statuses: ['COMPLETED'], channels: [], options: {} };
	const context = {
		getNode: () => ({ id: 'backstop-node', name: 'Backstop', type: 'n8n-nodes-money.moneyPollTrigger', typeVersion: 1, parameters: {}, position: [0, 0], credentials: {} }),
		getWorkflow: () => ({ id: workflowId }),
		getMode: () => 'trigger',
		getKnownNodeTypes: () => ({}),
		getNodeParameter: (name: string, fallback: unknown) => (name in parameters ? parameters[name] : fallback),
		getWorkflowStaticData: () => ({}),
		getCredentials: credentials,
		__emitError: (error: Error & { description?: string }) => {
			reported.push(error.message);
			remedies.push(error.description ?? '');
		},
		logger: { warn() {}, info() {}, debug() {} },
		helpers: {
			httpRequest: async (options: { body: string }) => {
				const body = JSON.parse(options.body);
				posts.push(body.backstop.event ? `event ${body.backstop.event.data.reference}` : 'checkpoint');
				if (body.backstop.checkpoint) checkpoints.push(body.backstop.checkpoint.state);
				const given = answer(body);
				const { status, error } = typeof given === 'number' ? { status: given, error: undefined } : given;
				return { statusCode: status, headers: { [ANSWERED_BY_TRIGGER_HEADER]: 'money-trigger' }, body: JSON.stringify(error ? { success: false, error } : {}) };
			},
			httpRequestWithAuthentication: async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: { success: true, data: [], pagination: { page: 1, limit: 100, total: 0, pages: 1 } } }),
		},
	};
	return { context: context as unknown as IPollFunctions, posts, checkpoints, reported, remedies };
}

const GRACELESS = { triggerName: 'Money Trigger', graceMs: 0 };

describe('a backstop poll hands over and keeps its state', () => {
	it('hands its state to the Money Trigger after each poll also while the trigger refuses an event (a restart continues from the newest state, the refused event in it)', async () => {
		const { context, posts, checkpoints } = backstopContext('wf-refused', (body) => (body.backstop.event?.data.reference === 'CH-STUCK' ? 503 : 200));
		workflowMemory('production:wf-refused', false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/x/money', node: 'trigger' });
		for (let poll = 0; poll < 3; poll++) {
			const { state, memory } = backstopState(context);
			state.cursors = { charge: 1000 + poll };
			await handOver(context, state, poll === 0 ? [event('CH-STUCK'), event('CH-1')] : [event(`CH-${poll + 1}`)], GRACELESS, memory, false);
			expect(posts[posts.length - 1]).toBe('checkpoint');
			const kept = checkpoints[checkpoints.length - 1];
			expect(kept.cursors.charge).toBe(1000 + poll);
			expect(keys(kept.handOver ?? [])).toEqual(['charge:CH-STUCK:COMPLETED']);
		}
	});

	it('hands over no event in the first poll of an activation, which n8n runs inside the publication or the start (n8n 2.41 abandons one after 84 s), only its state; the next poll hands them over', async () => {
		const { context, posts, checkpoints } = backstopContext('wf-start', () => 200);
		workflowMemory('production:wf-start', false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/s/money', node: 'trigger' });
		const events = Array.from({ length: 12 }, (_, index) => event(`CH-S${index}`));
		const activation = backstopState(context);
		await handOver(context, activation.state, events, GRACELESS, activation.memory, true);
		// The state goes to the Money Trigger all the same: a restart before the next poll continues from it.
		expect(posts).toEqual(['checkpoint']);
		expect(keys(checkpoints[0].handOver ?? [])).toEqual(keys(events.map((each) => ({ event: each }))));
		const next = backstopState(context);
		await handOver(context, next.state, [], GRACELESS, next.memory, false);
		expect(posts).toEqual(['checkpoint', ...events.map((each) => `event ${each.reference}`), 'checkpoint']);
		expect(checkpoints[1].handOver).toBeUndefined();
	});

	it('knows the first poll of an activation by its context, asked as the poll starts, so a first poll that failed is not followed by a second first', async () => {
		const { context } = backstopContext('wf-first', () => 200);
		expect(firstPollOf(context)).toBe(true);
		expect(firstPollOf(context)).toBe(false);
		expect(firstPollOf(backstopContext('wf-first', () => 200).context)).toBe(true);
	});

	it('reports events every poll left waiting 15 minutes past the grace period, as when each poll is the first of its context (n8n 2.41\'s opt-in scheduler)', async () => {
		workflowMemory('production:wf-per-poll', false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/p/money', node: 'trigger' });
		const first = backstopContext('wf-per-poll', () => 200);
		const started = backstopState(first.context);
		await handOver(first.context, started.state, [event('CH-P0')], GRACELESS, started.memory, true);
		expect(first.reported).toEqual([]);
		const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 16 * 60_000);
		try {
			const later = backstopContext('wf-per-poll', () => 200);
			const { state, memory } = backstopState(later.context);
			await handOver(later.context, state, [], GRACELESS, memory, true);
			expect(later.posts.filter((post) => post.startsWith('event'))).toEqual([]);
			expect(later.reported).toEqual(['1 event(s) waited over 15 minutes past the grace period: every poll of this trigger was the first of an activation']);
		} finally {
			now.mockRestore();
		}
	});

	// Before, every refusal of the state was reported as too large: in the queue CI run of 50e7d4e a
	// webhook process shutting down answered 401 (its credential read failed), a failed execution.
	it('reports a state the Money Trigger refused by what it answered: a 503 or 409 passes (the next poll hands it over again), a 413 names the size, a 401 the credential', async () => {
		const answers = new Map<number, string[]>();
		const remediesOf = new Map<number, string[]>();
		for (const status of [503, 409, 413, 401]) {
			const { context, reported, remedies, posts } = backstopContext(`wf-state-${status}`, (body) => (body.backstop.event ? 200 : status));
			workflowMemory(`production:wf-state-${status}`, false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/k/money', node: 'trigger' });
			for (let poll = 0; poll < 2; poll++) {
				const { state, memory } = backstopState(context);
				state.cursors = { charge: 1000 };
				await handOver(context, state, [], GRACELESS, memory, false);
			}
			expect(posts).toEqual(['checkpoint', 'checkpoint']);
			answers.set(status, reported);
			remediesOf.set(status, remedies);
		}
		expect(answers.get(503)).toEqual([]);
		expect(answers.get(409)).toEqual([]);
		expect(answers.get(413)).toEqual(['The Money Trigger "Money Trigger" did not keep this trigger\'s state (1 KB; 413)', 'The Money Trigger "Money Trigger" did not keep this trigger\'s state (1 KB; 413)']);
		expect(remediesOf.get(413)?.[0]).toMatch(/^Raise Max Body Size in the Money Trigger's Options, or lower Max Watched Transactions here\./);
		expect(answers.get(401)?.[0]).toBe('The Money Trigger "Money Trigger" did not keep this trigger\'s state (1 KB; 401)');
		expect(remediesOf.get(401)?.[0]).toMatch(/^Give this trigger the same Money API credential as the Money Trigger/);
	});

	/** Polls `context` at `atMs` with `fresh` events, the cursor moved (a state that changed). */
	async function pollAt(context: IPollFunctions, fresh: MoneyEventItem[], atMs: number, cursor: number): Promise<void> {
		const now = jest.spyOn(Date, 'now').mockReturnValue(atMs);
		try {
			const { state, memory } = backstopState(context);
			state.cursors = { charge: cursor };
			await handOver(context, state, fresh, GRACELESS, memory, false);
		} finally {
			now.mockRestore();
		}
	}
	const T0 = 1_900_000_000_000;
	const unavailable = { status: 503, error: 'receiver-unavailable' };

	// Before, the report said a 503 passes by itself, and each poll posted every waiting event (602
	// requests for 300 events in two polls).
	it('stops at a Money Trigger that cannot read its credential (503 receiver-unavailable), as at a 401: one request a poll; 15 minutes on, the report names the credential', async () => {
		const { context, posts, reported, remedies } = backstopContext('wf-unavailable', () => unavailable);
		workflowMemory('production:wf-unavailable', false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/u/money', node: 'trigger' });
		await pollAt(context, Array.from({ length: 300 }, (_, index) => event(`CH-U${index}`)), T0, 1000);
		await pollAt(context, [], T0 + 60_000, 1001);
		expect(posts).toEqual(['event CH-U0', 'event CH-U0']);
		expect(reported).toEqual([]);
		await pollAt(context, [], T0 + 16 * 60_000, 1002);
		expect(reported).toEqual(['The Money Trigger "Money Trigger" did not take 300 event(s) handed over (503 receiver-unavailable)']);
		expect(remedies[0]).toMatch(/^The Money Trigger cannot read its Money API credential: check that it still exists/);
	});

	// F3: a state refused with a 503 at every poll was never reported.
	it('reports a state no poll could hand over for 15 minutes, though each refusal passes by itself', async () => {
		const { context, posts, reported } = backstopContext('wf-state-stalled', () => unavailable);
		workflowMemory('production:wf-state-stalled', false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/t/money', node: 'trigger' });
		for (let minute = 0; minute <= 15; minute++) await pollAt(context, [], T0 + minute * 60_000, 1000 + minute);
		expect(reported).toEqual([]);
		await pollAt(context, [], T0 + 16 * 60_000, 1016);
		expect(posts.filter((each) => each === 'checkpoint')).toHaveLength(17);
		expect(reported).toEqual(['The Money Trigger "Money Trigger" did not keep this trigger\'s state (1 KB; 503 receiver-unavailable)']);
	});

	// F4: only the last refusal of a poll was judged, so a 413 followed by a 503 went unreported.
	it('judges a poll by a refusal that does not pass, though one that passes came after it', async () => {
		const { context, reported } = backstopContext('wf-worst', (body) =>
			body.backstop.event?.data.reference === 'CH-BIG' ? 413 : body.backstop.event ? { status: 503, error: 'confirmation-unavailable' } : 200,
		);
		workflowMemory('production:wf-worst', false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/w/money', node: 'trigger' });
		await pollAt(context, [event('CH-BIG'), event('CH-2')], T0, 1000);
		expect(reported).toEqual(['The Money Trigger "Money Trigger" did not take 2 event(s) handed over (413)']);
	});

	it('reports a poll whose credential cannot be read instead of failing it (n8n would fail the publish)', async () => {
		const { context, reported } = backstopContext('wf-credential', () => 200, async () => {
			throw new Error('Credential with ID "7" does not exist');
		});
		workflowMemory('production:wf-credential', false).noteTrigger('Money Trigger', { url: 'http://127.0.0.1/webhook/y/money', node: 'trigger' });
		await expect(new MoneyPollTrigger().poll.call(context)).resolves.toBeNull();
		expect(reported).toEqual(['Credential with ID "7" does not exist']);
	});
});

describe('the Money Trigger a backstop names', () => {
	it('is known by its current name only: renamed, the old name names no trigger (a node given the old name later is that name\'s)', () => {
		const memory = new WorkflowMemory(false);
		memory.noteTrigger('Money Trigger', { url: 'http://n8n/webhook/a/money', node: 'trigger-a' });
		memory.noteTrigger('Charges', { url: 'http://n8n/webhook/a/money', node: 'trigger-a' });
		expect(memory.trigger('Money Trigger')).toBeUndefined();
		expect(memory.trigger('Charges')).toEqual({ url: 'http://n8n/webhook/a/money', node: 'trigger-a' });

		const restarted = new WorkflowMemory(false);
		restarted.absorb({ nodes: {}, triggers: { 'Money Trigger': { url: 'http://n8n/webhook/a/money', node: 'trigger-a' } } });
		restarted.noteTrigger('Charges', { url: 'http://n8n/webhook/a/money', node: 'trigger-a' });
		expect(restarted.trigger('Money Trigger')).toBeUndefined();

		// A queue-mode main process notes no trigger: it learns the name from each copy it loads.
		const main = new WorkflowMemory(false);
		main.absorb({ nodes: {}, triggers: { 'Money Trigger': { url: 'http://n8n/webhook/a/money', node: 'trigger-a' } } });
		main.absorb({ nodes: {}, triggers: { Charges: { url: 'http://n8n/webhook/a/money', node: 'trigger-a' } } });
		expect(main.trigger('Money Trigger')).toBeUndefined();
		expect(main.trigger('Charges')?.node).toBe('trigger-a');
	});
});
