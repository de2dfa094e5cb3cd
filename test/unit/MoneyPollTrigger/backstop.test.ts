import { sortEvents } from '../../../nodes/MoneyPollTrigger/polling/backstop';
import { parseState } from '../../../nodes/MoneyPollTrigger/polling/state';
import { buildEventItem, type MoneyEventItem } from '../../../nodes/events/item';
import type { TransactionResource } from '../../../nodes/api/values';
import { transactionHash } from '../../../nodes/MoneyTrigger/memory/statuses';
import { WorkflowMemory } from '../../../nodes/MoneyTrigger/memory/workflowMemory';

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
