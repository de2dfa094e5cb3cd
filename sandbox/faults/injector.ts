import { seededRandom } from '../domain/random';

export type FaultKind = '404' | '429' | '500' | '502' | '503' | 'delay' | 'drop-after-commit' | 'drop' | 'page-200' | 'page-200-after-commit' | 'not-success-200' | 'status-label';

export interface FaultSpec {
	route: string;
	kind: FaultKind;
	rate?: number;
	count?: number;
	delayMs?: number;
	retryAfterSeconds?: number;
	/** status-label: the label every transaction of the answer shows. */
	label?: string;
}

const FAULT_KINDS: readonly FaultKind[] = ['404', '429', '500', '502', '503', 'delay', 'drop-after-commit', 'drop', 'page-200', 'page-200-after-commit', 'not-success-200', 'status-label'];
/** Faults that act on a create once it ran in full. */
const AFTER_COMMIT: readonly FaultKind[] = ['drop-after-commit', 'page-200-after-commit'];

interface ActiveFault extends FaultSpec {
	id: string;
	remaining: number | null;
}

export function parseFault(input: unknown): FaultSpec {
	if (typeof input !== 'object' || input === null) throw new Error('fault must be an object');
	const fault = input as Record<string, unknown>;
	if (typeof fault.route !== 'string' || fault.route.length === 0) throw new Error('fault.route must be a slug or "*"');
	if (!FAULT_KINDS.includes(fault.kind as FaultKind)) throw new Error(`fault.kind must be one of ${FAULT_KINDS.join(', ')}`);
	const optionalNumber = (name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
		const value = fault[name];
		if (value === undefined || value === null) return undefined;
		if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
			throw new Error(`fault.${name} must be a number in [${min}, ${max}]`);
		}
		return value;
	};
	if (fault.kind === 'status-label' && (typeof fault.label !== 'string' || fault.label.length === 0)) throw new Error('fault.label must be a status label');
	return {
		route: fault.route,
		kind: fault.kind as FaultKind,
		...(fault.kind === 'status-label' ? { label: fault.label as string } : {}),
		rate: optionalNumber('rate', 0, 1),
		count: optionalNumber('count', 1),
		delayMs: optionalNumber('delayMs', 0, 600_000),
		retryAfterSeconds: optionalNumber('retryAfterSeconds', 0),
	};
}

export class FaultInjector {
	private faults: ActiveFault[] = [];
	private nextId = 1;
	private random: () => number;

	constructor(seed: number) {
		this.random = seededRandom(seed);
	}

	reseed(seed: number): void {
		this.random = seededRandom(seed);
	}

	add(spec: FaultSpec): string {
		const id = `flt_${this.nextId++}`;
		this.faults.push({ ...spec, id, remaining: spec.count ?? null });
		return id;
	}

	remove(id: string): boolean {
		const before = this.faults.length;
		this.faults = this.faults.filter((fault) => fault.id !== id);
		return this.faults.length !== before;
	}

	clear(): void {
		this.faults = [];
	}

	list(): Array<FaultSpec & { id: string; remaining: number | null }> {
		return this.faults.map((fault) => ({ ...fault }));
	}

	/**
	 * The first matching fault that fires (by its rate), in the order faults were added. It is
	 * consumed now, except a *-after-commit one (creates only): the request runs, and `consume` takes
	 * it once the create ran in full, so a request refused before (a 401) does not use it up.
	 */
	pick(slug: string, isCreate: boolean): FaultSpec | undefined {
		for (const fault of this.faults) {
			if (fault.route !== '*' && fault.route !== slug) continue;
			const afterCommit = AFTER_COMMIT.includes(fault.kind);
			if (afterCommit && !isCreate) continue;
			if (fault.rate !== undefined && this.random() >= fault.rate) continue;
			if (!afterCommit) this.consume(fault);
			return fault;
		}
		return undefined;
	}

	consume(fault: FaultSpec): void {
		const active = this.faults.find((candidate) => candidate === fault);
		if (!active || active.remaining === null) return;
		active.remaining -= 1;
		if (active.remaining <= 0) this.faults = this.faults.filter((candidate) => candidate !== active);
	}
}
