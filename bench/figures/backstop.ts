import { sortEvents } from '../../nodes/MoneyPollTrigger/polling/backstop';
import { parseState, type PollState } from '../../nodes/MoneyPollTrigger/polling/state';
import { buildEventItem, type MoneyEventItem } from '../../nodes/events/item';
import { referenceKey } from '../../nodes/events/memory';
import { transactionHash } from '../../nodes/MoneyTrigger/memory/statuses';
import { WorkflowMemory } from '../../nodes/MoneyTrigger/memory/workflowMemory';
import { collectGarbage } from '../env';
import { figure, type FigureResult, progress } from '../stats';

/** Events a backstop poll sees: half of them delivered already (the memory holds them), half not. */
const EVENTS_PER_POLL = 100;
const POLLS_PER_RUN = 200;
/** The baseline's memory: a quiet account. */
const SMALL = 1_000;

function memoryHolding(count: number): WorkflowMemory {
	const memory = new WorkflowMemory(false);
	const node = memory.node('trigger');
	for (let index = 0; index < count; index++) node.advance(transactionHash(referenceKey('charge', `CH-${index}`)), 'COMPLETED');
	return memory;
}

function eventsOf(poll: number, remembered: number): MoneyEventItem[] {
	return Array.from({ length: EVENTS_PER_POLL }, (_, index) => {
		const reference = index % 2 === 0 && remembered > 0 ? `CH-${(poll * EVENTS_PER_POLL + index) % remembered}` : `CH-new-${poll}-${index}`;
		return buildEventItem({ id: `poll_${reference}_completed`, source: 'poll', resource: 'charge', envelope: { reference, status: { code: 2, label: 'COMPLETED' }, amount: { value: 1000, currency: 'XOF' } } });
	});
}

/** µs per poll: the poll's events sorted against the memory, then the state serialised for its checkpoint. */
function timePolls(memory: WorkflowMemory, remembered: number): number {
	const state: PollState = parseState({});
	collectGarbage();
	const started = performance.now();
	for (let poll = 0; poll < POLLS_PER_RUN; poll++) {
		const { waiting } = sortEvents(state, eventsOf(poll, remembered), memory, 'trigger', poll * 60_000, 5 * 60_000);
		state.handOver = waiting.slice(-EVENTS_PER_POLL * 5);
		JSON.stringify(state);
	}
	return ((performance.now() - started) * 1000) / POLLS_PER_RUN;
}

/**
 * What a backstop poll costs in its own process beyond the Poll Trigger's reads, with the Money
 * Trigger's memory holding 10,000 and 50,000 transactions, against the same with it holding 1,000,
 * rounds interleaved. Its requests are not in it: one per event handed over and, when the state
 * changed, one checkpoint, which has n8n save the static data (`webhook_memory_save_ms_50000`).
 */
export function backstopFigures(options: { runs: number }): FigureResult[] {
	const sizes = [10_000, 50_000];
	const memories = new Map(sizes.map((size) => [size, memoryHolding(size)]));
	const small = memoryHolding(SMALL);
	const baseline: number[] = [];
	const bySize = new Map<number, number[]>(sizes.map((size) => [size, []]));
	for (let run = 0; run < options.runs; run++) {
		const order = run % 2 === 0 ? [0, ...sizes] : [...sizes].reverse().concat(0);
		for (const size of order) {
			if (size === 0) baseline.push(timePolls(small, SMALL));
			else bySize.get(size)!.push(timePolls(memories.get(size)!, size));
		}
		progress(`backstop: run ${run + 1}/${options.runs}: ${sizes.map((size) => `${size}: ${bySize.get(size)![run].toFixed(0)} µs`).join(', ')}, ${SMALL}: ${baseline[run].toFixed(0)} µs per poll`);
	}
	const base = baseline.slice().sort((a, b) => a - b)[Math.floor(baseline.length / 2)];
	return sizes.map((size) =>
		figure(`backstop_poll_us_${size}`, 'µs', bySize.get(size)!, {
			ratio: (value) => value / base,
			baseline: `the same polls with the Money Trigger memory holding ${SMALL.toLocaleString('en')} transactions`,
			note: `per poll of ${EVENTS_PER_POLL} events (half delivered already), the memory holding ${size.toLocaleString('en')} transactions: sorted against the memory, the state serialised; the requests are not counted`,
		}),
	);
}
