import {
	EVENT_ID_REPLAY_WINDOW_SECONDS,
	EVENT_ID_RETENTION_SECONDS,
} from '../../../nodes/events/memory';
import { NodeMemory, referenceKey } from '../../../nodes/MoneyTrigger/memory/nodeMemory';
import { WorkflowMemory } from '../../../nodes/MoneyTrigger/memory/workflowMemory';

const T0 = 1_700_000_000;

describe('NodeMemory: what one trigger node accepted', () => {
	it('keeps ids inside the replay window whatever the traffic, and refuses room past the hard cap', () => {
		const memory = new NodeMemory({ soft: 3, hard: 5, references: 10 });
		for (let index = 0; index < 5; index++) {
			expect(memory.hasRoom(T0)).toBe(true);
			memory.record(`evt_${index}`, T0);
		}
		expect(memory.hasRoom(T0 + 10)).toBe(false);
		expect(memory.has('evt_0')).toBe(true);
		expect(memory.hasRoom(T0 + EVENT_ID_REPLAY_WINDOW_SECONDS + 1)).toBe(true);
		expect(memory.size).toBe(2);
		expect(memory.has('evt_0')).toBe(false);
		expect(memory.has('evt_4')).toBe(true);
	});

	it('keeps an id whose sender will retry past the soft cap until a retry is answered, and no longer than the retention', () => {
		const memory = new NodeMemory({ soft: 2, hard: 10, references: 10 });
		memory.record('evt_unanswered', T0);
		memory.expectRetry('evt_unanswered');
		memory.record('evt_answered', T0);
		for (let index = 0; index < 3; index++) memory.record(`evt_later_${index}`, T0 + EVENT_ID_REPLAY_WINDOW_SECONDS + 10);
		memory.hasRoom(T0 + EVENT_ID_REPLAY_WINDOW_SECONDS + 20);
		expect(memory.has('evt_answered')).toBe(false);
		expect(memory.has('evt_unanswered')).toBe(true);

		const restored = new NodeMemory({ soft: 2, hard: 10, references: 10 });
		restored.merge(memory.toStored());
		expect(restored.isRetryExpected('evt_unanswered')).toBe(true);
		restored.hasRoom(T0 + EVENT_ID_RETENTION_SECONDS);
		expect(restored.has('evt_unanswered')).toBe(false);

		memory.retryAnswered('evt_unanswered');
		expect(JSON.parse(memory.toStored().events)).toContainEqual(['evt_unanswered', T0]);
		memory.hasRoom(T0 + 2 * EVENT_ID_REPLAY_WINDOW_SECONDS + 20);
		expect(memory.has('evt_unanswered')).toBe(false);
	});

	it('drops ids older than the retention', () => {
		const memory = new NodeMemory();
		memory.record('evt_old', T0);
		memory.record('evt_new', T0 + EVENT_ID_RETENTION_SECONDS);
		memory.hasRoom(T0 + EVENT_ID_RETENTION_SECONDS);
		expect(memory.has('evt_old')).toBe(false);
		expect(memory.has('evt_new')).toBe(true);
	});

	it('keeps the newest statuses per reference, most recently changed last', () => {
		const memory = new NodeMemory({ soft: 10, hard: 20, references: 2 });
		memory.record('e1', T0, { key: referenceKey('charge', 'A'), value: 'PENDING' });
		memory.record('e2', T0, { key: referenceKey('charge', 'B'), value: 'COMPLETED' });
		memory.record('e3', T0, { key: referenceKey('charge', 'A'), value: 'COMPLETED' });
		memory.record('e4', T0, { key: referenceKey('payout', 'C'), value: 'FAILED' });
		expect(memory.status('charge', 'B')).toBeUndefined();
		expect(memory.status('charge', 'A')).toBe('COMPLETED');
		expect(JSON.parse(memory.toStored().statuses)).toEqual([['charge:A', 'COMPLETED'], ['payout:C', 'FAILED']]);
	});

	it('merges a stored copy: ids in time order, a status only moves forward, unknown references go first', () => {
		const memory = new NodeMemory();
		memory.record('mine', T0 + 5, { key: 'charge:A', value: 'PENDING' });
		memory.merge({
			events: JSON.stringify([['older', T0], ['900', T0 + 1], ['mine', T0 + 5]]),
			statuses: JSON.stringify([['charge:B', 'FAILED'], ['charge:A', 'COMPLETED']]),
		});
		expect(JSON.parse(memory.toStored().events)).toEqual([['older', T0], ['900', T0 + 1], ['mine', T0 + 5]]);
		expect(memory.status('charge', 'A')).toBe('COMPLETED');
		expect(JSON.parse(memory.toStored().statuses).map(([key]: [string]) => key)).toEqual(['charge:B', 'charge:A']);
		memory.merge({ events: '[]', statuses: JSON.stringify([['charge:A', 'PENDING']]) });
		expect(memory.status('charge', 'A')).toBe('COMPLETED');
		memory.merge('not a memory');
		memory.merge({ events: 'not json', statuses: '{"not":"pairs"}' });
		expect(memory.size).toBe(3);
	});

	it('takes in the older form kept in a node\'s own static data', () => {
		const memory = new NodeMemory();
		memory.merge({
			seenEvents: { 'e:900': T0, 'e:100': T0 + 1 },
			seenEventCount: 2,
			statuses: { 'charge:A': 'COMPLETED', 'charge:__proto__': 'FAILED' },
			referenceOrder: ['charge:__proto__', 'charge:A', 'constructor'],
		});
		expect(JSON.parse(memory.toStored().events)).toEqual([['900', T0], ['100', T0 + 1]]);
		expect(memory.status('charge', 'A')).toBe('COMPLETED');
		expect(memory.status('charge', '__proto__')).toBe('FAILED');
	});

	it('writes the same stored text until something changes', () => {
		const memory = new NodeMemory();
		memory.record('a', T0);
		const first = memory.toStored();
		expect(memory.toStored()).toBe(first);
		memory.record('a', T0);
		expect(memory.toStored()).toBe(first);
		memory.record('b', T0);
		expect(memory.toStored()).not.toBe(first);
	});
});

describe('WorkflowMemory: every trigger node of a workflow, written whole at each save', () => {
	it('serialises when n8n serialises (not when the request loaded its copy), and runs the save hook first', () => {
		const memory = new WorkflowMemory();
		const saved: string[] = [];
		const form = memory.storedForm(() => {
			saved.push('hook');
			memory.node('n1').record('late', T0);
		});
		memory.node('n2').record('early', T0);
		expect(Object.keys(form)).toEqual([]);
		const written = JSON.parse(JSON.stringify({ global: { moneyTriggerMemory: form } })).global.moneyTriggerMemory;
		expect(saved).toEqual(['hook']);
		expect(Object.keys(written.nodes).sort()).toEqual(['n1', 'n2']);
		expect(JSON.parse(written.nodes.n1.events)).toEqual([['late', T0]]);
		expect(written.writer).toMatch(/^[0-9a-f-]+:1$/);
	});

	it('takes in copies other memories wrote (another process, before a restart), skips its own', () => {
		const here = new WorkflowMemory();
		const elsewhere = new WorkflowMemory();
		elsewhere.node('n1').record('theirs', T0);
		here.absorb(JSON.parse(JSON.stringify(elsewhere.storedForm())));
		expect(here.node('n1').has('theirs')).toBe(true);

		const own = JSON.parse(JSON.stringify(here.storedForm()));
		own.nodes.n1.events = JSON.stringify([['injected', T0]]);
		here.absorb(own);
		expect(here.node('n1').has('injected')).toBe(false);
		here.absorb(undefined);
		here.absorb({ writer: 'x', nodes: 'nope' });
		expect(here.node('n1').size).toBe(1);
	});
});
