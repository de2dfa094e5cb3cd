import type { IDataObject } from 'n8n-workflow';

/**
 * What a refused create means for the rest of the run. A velocity refusal clears by waiting; a
 * daily or monthly cap, or a balance that is too low, does not clear within a run.
 */
type RefusalKind = 'velocity' | 'daily_cap' | 'monthly_cap' | 'insufficient_funds' | 'other';

const FAMILIES: Array<{ kind: RefusalKind; fields: string[] }> = [
	{ kind: 'velocity', fields: ['velocity_limit', 'velocity_window_seconds', 'velocity_used'] },
	{ kind: 'daily_cap', fields: ['daily_cap', 'daily_used', 'daily_total'] },
	{ kind: 'monthly_cap', fields: ['monthly_cap', 'monthly_used', 'monthly_total'] },
	{ kind: 'other', fields: ['min_amount', 'max_amount'] },
];

const NAME_FIELDS = ['limit', 'breach', 'limit_type', 'limit_name', 'reason'];

/** Whole words only: "today", "Monday" or "holiday" in a refusal's reason are not a daily cap. */
function kindFromName(name: string): RefusalKind {
	const words = new Set(name.toLowerCase().split(/[^a-z]+/));
	if (words.has('velocity')) return 'velocity';
	if (words.has('daily') || words.has('day')) return 'daily_cap';
	if (words.has('monthly') || words.has('month')) return 'monthly_cap';
	return 'other';
}

/**
 * Reads which limit a refusal names. `LIMIT_EXCEEDED` details may name the breach (`limit:
 * "daily_cap"`); without a name, the one family of limit fields present decides, then a used
 * velocity at its limit. Additive codes that mention velocity (for charges, say) count as velocity.
 */
export function classifyRefusal(errorCode: unknown, details: IDataObject | undefined): RefusalKind {
	if (typeof errorCode !== 'string') return 'other';
	if (errorCode === 'INSUFFICIENT_FUNDS') return 'insufficient_funds';
	if (errorCode !== 'LIMIT_EXCEEDED') return /VELOCITY/i.test(errorCode) ? 'velocity' : 'other';
	if (!details) return 'other';
	for (const field of NAME_FIELDS) {
		const name = details[field];
		if (typeof name === 'string' && name.trim() !== '') return kindFromName(name);
	}
	const present = FAMILIES.filter((family) => family.fields.some((field) => details[field] !== undefined));
	if (present.length === 1) return present[0].kind;
	const used = Number(details.velocity_used);
	const limit = Number(details.velocity_limit);
	if (Number.isFinite(used) && Number.isFinite(limit) && limit > 0 && used >= limit) return 'velocity';
	return 'other';
}

export interface RunStop {
	kind: Exclude<RefusalKind, 'velocity' | 'other'>;
	/** The item whose refusal stopped the run, 0-based. */
	itemIndex: number;
	errorCode: string;
	httpCode: number | null;
	currency: string;
	details: IDataObject;
}

/** The wallet a create debits: its currency and account number (empty: the default wallet). */
interface CreateScope {
	resource: string;
	currency: string;
	accountNumber?: string;
}

function scopeKey(scope: CreateScope): string {
	return `${scope.resource}|${scope.currency}|${scope.accountNumber ?? ''}`;
}

/** The caps and shortfalls met so far in one node execution, by resource, currency and wallet. */
export class RunStops {
	private readonly stops = new Map<string, RunStop>();

	record(scope: CreateScope, stop: RunStop): void {
		if (!this.stops.has(scopeKey(scope))) this.stops.set(scopeKey(scope), stop);
	}

	find(scope: CreateScope): RunStop | undefined {
		return this.stops.get(scopeKey(scope));
	}
}

function amountText(value: unknown, currency: string): string {
	return typeof value === 'number' ? `${value} ${currency}` : `${String(value)} ${currency}`;
}

/** One line naming the cap or the shortfall, for the item that was refused and those skipped after it. */
export function describeStop(stop: RunStop, amount?: number): string {
	const { details, currency } = stop;
	const at = `at item ${stop.itemIndex + 1}`;
	if (stop.kind === 'insufficient_funds') {
		const available = Number(details.available_balance);
		if (!Number.isFinite(available)) return `the wallet balance ran out ${at}`;
		const shortfall = amount !== undefined && amount > available ? `; this payout of ${amount} ${currency} is short by ${amount - available} ${currency}` : '';
		return `the wallet had ${amountText(available, currency)} available ${at}${shortfall}`;
	}
	const period = stop.kind === 'daily_cap' ? 'daily' : 'monthly';
	const cap = details[stop.kind];
	const used = details[`${period}_used`] ?? details[`${period}_total`];
	const capText = cap !== undefined ? ` of ${amountText(cap, currency)}` : '';
	const usedText = used !== undefined ? ` (${amountText(used, currency)} already used)` : '';
	return `the ${period} payout cap${capText} was reached ${at}${usedText}`;
}

export function adviceFor(stop: RunStop): string {
	if (stop.kind === 'insufficient_funds') {
		return 'Top up the merchant wallet (or debit another wallet with Account Number), then Retry this execution: the items it paid are not paid again, and Check Balance First counts only the rest. Running the workflow again is safe for items with a Business Reference.';
	}
	const when = stop.kind === 'daily_cap' ? 'the next UTC day' : 'the next UTC month';
	return `Run the remaining items after ${when}, or ask the Money API provider to raise the cap: items with a Business Reference that were paid are not paid twice.`;
}
