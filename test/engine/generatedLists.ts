import type { ListTieOrder, SandboxControl, SeedRequest } from '../../sandbox';
import { seededRandom } from '../../sandbox/domain/random';

/**
 * Generated lists for the property tests of the readers (Get Many, Reconcile, the Poll Trigger):
 * transactions spread over a span, bursts at single instants (some larger than a page), a tie
 * group placed to straddle the boundary of pages 1 and 2, ties listed in another order on each
 * request; and, while a node reads, transactions listed late inside the span and statuses changing.
 */

export interface GeneratedList {
	ties: ListTieOrder;
	seeds: SeedRequest[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The seeds of one generated list of `resource` created between `from` and `to` (ms), all tagged `batch`. */
export function generateList(seed: number, resource: 'charge' | 'payout', from: number, to: number, batch: string, status: SeedRequest['status'] = 'COMPLETED'): GeneratedList {
	const pick = seededRandom(seed);
	const span = to - from;
	const at = () => from + 1000 + Math.floor(pick() * (span - 2000));
	const metadata = { batch };
	const seeds: SeedRequest[] = [{ resource, count: 20 + Math.floor(pick() * 180), status, createdAtFrom: iso(from + 1000), createdAtTo: iso(to - 1000), metadata }];
	// A tie group among the newest: it straddles the first page boundary.
	const newest = to - 500;
	seeds.push({ resource, count: 95, status, createdAtFrom: iso(newest - 400), createdAtTo: iso(newest - 300), metadata });
	seeds.push({ resource, count: 2 + Math.floor(pick() * 20), status, createdAtFrom: iso(newest - 450), createdAtTo: iso(newest - 450), metadata });
	for (let burst = Math.floor(pick() * 3); burst > 0; burst--) {
		const instant = iso(at());
		seeds.push({ resource, count: [3, 101, 150, 250][Math.floor(pick() * 4)], status, createdAtFrom: instant, createdAtTo: instant, metadata });
	}
	return { ties: pick() < 0.5 ? 'alternating' : 'shuffled', seeds };
}

export async function seedAll(control: SandboxControl, list: GeneratedList): Promise<void> {
	await control.setListTieOrder(list.ties);
	for (const request of list.seeds) await control.seed(request);
}

/**
 * Until `stop()`: every few milliseconds, a transaction listed late inside the span (tagged
 * `${batch}-late`) and a status changed (PENDING to COMPLETED) among `pending`.
 */
export function mutateWhileReading(control: SandboxControl, seed: number, resource: 'charge' | 'payout', from: number, to: number, batch: string, pending: string[] = []) {
	const pick = seededRandom(seed * 7919);
	let running = true;
	const done = (async () => {
		while (running) {
			const instant = iso(from + 1000 + Math.floor(pick() * (to - from - 2000)));
			await control.seed({ resource, count: 1, status: 'COMPLETED', createdAtFrom: instant, createdAtTo: instant, metadata: { batch: `${batch}-late` } });
			const reference = pending.splice(Math.floor(pick() * pending.length), 1)[0];
			if (reference) await control.setStatus(reference, 'COMPLETED');
			await new Promise((resolve) => setTimeout(resolve, 2 + Math.floor(pick() * 10)));
		}
	})();
	return async () => {
		running = false;
		await done;
	};
}
