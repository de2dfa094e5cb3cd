import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { moneyApiError, type NodeError } from '../../../transport/errors';
import type { CreateOutcome } from '../../../transport/request';
import { debitsWallet, itemList, requiredReferenceRefusal, type WalletBalance } from './gate';
import { durationText, type PacingSettings, VelocityPacer } from './pacing';
import type { Plan } from './plan';
import type { CreateRow } from './rows';

/**
 * Preview Only (docs/architecture.md, "Preview Only"): the create run itself, with a request that
 * sends nothing, a clock that only advances and a copy of the node's memory. The request answers as
 * the Money API would where the node can know it: INSUFFICIENT_FUNDS once the payouts debiting the
 * primary wallet pass its balance read at the start, LIMIT_EXCEEDED past the credential's velocity
 * limit on the simulated clock. A create made before under its key takes neither.
 */

interface PreviewedRow {
	itemIndex: number;
	wouldSend: boolean;
	/** False for a row this execution already had accepted (it comes back replayed, moves nothing); 'maybe' for one sent before without an acknowledgement. */
	moves: boolean | 'maybe';
	body?: IDataObject;
	notReached?: true;
}

export class Preview {
	readonly clock = { at: 0 };
	private readonly rows: PreviewedRow[] = [];
	private readonly sentAt = new Map<number, number>();
	private readonly window: VelocityPacer;
	private available?: number;
	/** The first refused row when On Error is Stop Workflow: the real run fails there and reaches no later row. */
	private stopsAt?: number;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly resource: TransactionResource,
		private readonly settings: PacingSettings,
		private readonly wallet: WalletBalance | string | undefined,
		/** A default key is the real run's only when the execution's memory held its anchor before the preview (a Retry). */
		private readonly defaultKeysKnown: boolean,
		private readonly plan: Plan,
	) {
		this.window = new VelocityPacer({ ...settings.velocity });
		this.available = typeof wallet === 'object' ? wallet.value : undefined;
	}

	now(): number {
		return this.clock.at;
	}

	/** The simulated wait: the clock advances, nothing is stopped. */
	async wait(ms: number): Promise<boolean> {
		this.clock.at += ms;
		return false;
	}

	/** A preview says what it found once, above its output (summary). */
	announce(): void {}

	/** The simulated create request: an acknowledgement, or the refusal the Money API would give. */
	async post(row: CreateRow, body: IDataObject): Promise<CreateOutcome> {
		const accepted: CreateOutcome = { kind: 'accepted', answer: { body: {}, headers: {} } };
		this.sentAt.set(row.itemIndex, this.clock.at);
		if (this.resource !== 'payout') return accepted;
		const node = this.context.getNode();
		if (this.window.delayBeforeNext(this.clock.at) > 0) {
			const { limit, windowMs } = this.window;
			const details = { limit: 'velocity_limit', velocity_limit: limit, velocity_window_seconds: windowMs / 1000, velocity_used: limit };
			return { kind: 'refused', error: moneyApiError(node, { httpCode: 403, errorCode: 'LIMIT_EXCEEDED', apiMessage: `more than ${limit} payouts in ${windowMs / 1000} seconds`, details }, row.itemIndex) };
		}
		const amount = body.amount as number;
		const debits = typeof this.wallet === 'object' && this.available !== undefined && debitsWallet(body, this.wallet);
		if (debits && amount > (this.available ?? 0)) {
			const details = { available_balance: this.available ?? 0, currency: body.currency as string, requested_amount: amount };
			return { kind: 'refused', error: moneyApiError(node, { httpCode: 402, errorCode: 'INSUFFICIENT_FUNDS', apiMessage: 'insufficient funds', details }, row.itemIndex) };
		}
		if (debits) this.available = (this.available ?? 0) - amount;
		this.window.recordSend(this.clock.at);
		return accepted;
	}

	/** The row the run stops before (On Error: Stop Workflow), as an item; undefined when the run reaches it. */
	notReached(row: CreateRow): IDataObject | undefined {
		if (this.stopsAt === undefined) return undefined;
		this.rows.push({ itemIndex: row.itemIndex, wouldSend: false, moves: false, notReached: true });
		return { verdict: 'would refuse', reason: `not reached: the run stops at item ${this.stopsAt + 1} (On Error: Stop Workflow)`, ...row.identity, idempotency_key: null };
	}

	/** A row the run sends under `key`; `moves`: whether it moves money. */
	wouldSend(row: CreateRow, key: string, moves: boolean | 'maybe'): IDataObject {
		this.rows.push({ itemIndex: row.itemIndex, wouldSend: true, moves, body: row.body });
		let reason: string | null = null;
		if (moves === false) reason = 'made before in this execution under its key: not sent again, nothing moves';
		else if (moves === 'maybe') reason = 'sent before without an answer: the Money API may already hold it (then it answers from its record and nothing moves)';
		else if (row.businessReference === '' && this.context.getMode() === 'manual') {
			const refusal = requiredReferenceRefusal(this.context, this.resource, row.itemIndex);
			if (refusal) reason = `sent when run from the editor; a production execution (trigger, webhook, schedule, Retry) refuses it: ${refusal.message}`;
		}
		return {
			verdict: 'would send',
			reason,
			...row.identity,
			...(this.resource === 'payout' ? { sends_after_seconds: Math.ceil((this.sentAt.get(row.itemIndex) ?? 0) / 1000) } : {}),
			idempotency_key: row.businessReference !== '' || this.defaultKeysKnown ? key : null,
		};
	}

	/** A row refused with the create's own error; with On Error at Stop Workflow the run stops there. */
	wouldRefuse(row: CreateRow, error: NodeError): IDataObject {
		this.rows.push({ itemIndex: row.itemIndex, wouldSend: false, moves: false });
		if (!this.context.continueOnFail()) this.stopsAt = row.itemIndex;
		const { field, idempotency_key: key } = error.context;
		return {
			verdict: 'would refuse',
			reason: error.message,
			...row.identity,
			...(typeof field === 'string' ? { field } : {}),
			idempotency_key: typeof key === 'string' && (this.defaultKeysKnown || row.businessReference !== '') ? key : null,
		};
	}

	/** The plan row of an item, for its output. */
	planOf(itemIndex: number): IDataObject {
		return { plan_id: this.plan.id, plan_row: this.plan.rows[itemIndex] };
	}

	finish(): void {
		for (const line of this.summary()) this.context.addExecutionHints({ message: line, location: 'outputPane' });
	}

	/** Above the output once the last row is previewed: the counts, the totals against the wallet, the run's length. */
	private summary(): string[] {
		const { resource, rows } = this;
		const refused = rows.filter((row) => !row.wouldSend && !row.notReached).map((row) => row.itemIndex);
		const notReached = rows.filter((row) => row.notReached).length;
		const stop =
			this.stopsAt !== undefined
				? `; On Error is Stop Workflow: the run stops at item ${this.stopsAt + 1}${notReached > 0 ? ` and does not reach ${notReached === 1 ? 'the row' : `the ${notReached} rows`} after it` : ''}`
				: '';
		const replayed = rows.filter((row) => row.wouldSend && row.moves === false).length;
		const again = replayed > 0 ? ` (${replayed} of them made before in this execution: answered from the API's record, they move nothing)` : '';
		const sent = rows.filter((row) => row.wouldSend).length;
		const counts = `Money ${resource} preview, nothing was sent: ${sent} of ${rows.length} rows would be sent${again}, ${refused.length} refused${refused.length > 0 ? ` (${itemList(refused)})` : ''}${stop}`;
		return [counts, this.totalsLine(), this.durationLine(), this.planLine()];
	}

	/** The plan a person approves: its id, its rows and API client, how the paying node pays only it. */
	private planLine(): string {
		const { id, rows, client, unreferenced } = this.plan;
		const line = `Money ${this.resource} preview: plan ${id}, ${rows.length} ${rows.length === 1 ? 'row' : 'rows'} to the Money API ${client}`;
		if (this.resource !== 'payout') return line;
		if (unreferenced.length > 0) {
			return `${line}; a run with Approved Plan refuses this plan: ${itemList(unreferenced)} ${unreferenced.length === 1 ? 'has' : 'have'} no Business Reference`;
		}
		return `${line}. To pay exactly these rows once a person approves them, set Approved Plan (Options) of the paying node to {{ $('${this.context.getNode().name}').first().json.plan_id }}`;
	}

	private totalsLine(): string {
		// The rows that may move money: one sent before without an answer counts in the "up to" figures (and against the balance).
		const moving = this.rows.filter((row) => row.wouldSend && row.moves !== false);
		const unanswered = moving.filter((row) => row.moves === 'maybe').length;
		const upTo = unanswered > 0 ? ` (up to ${totalsOf(moving)} with the ${unanswered} sent before without an answer, which the Money API may already hold)` : '';
		const line = `Money ${this.resource} preview: the rows that would be sent total ${totalsOf(moving.filter((row) => row.moves === true)) || 'nothing'}${upTo}`;
		const wallet = this.wallet;
		if (this.resource !== 'payout' || moving.length === 0) return line;
		if (typeof wallet !== 'object') return `${line}; ${wallet ?? 'the account balance was not read'}`;
		const debiting = moving.filter((row) => debitsWallet(row.body ?? {}, wallet));
		const total = debiting.reduce((sum, row) => sum + (row.body?.amount as number), 0);
		const verdict = total <= wallet.value ? 'covers them' : `is short by ${total - wallet.value} ${wallet.currency}: the rows past the balance would fail with INSUFFICIENT_FUNDS`;
		const others = moving.length - debiting.length;
		const unchecked = others > 0 ? `; ${others} payouts from another wallet or currency are not checked (the account reports its primary wallet only)` : '';
		return `${line}; wallet ${wallet.number} has ${wallet.value} ${wallet.currency} available, which ${verdict} (${total} ${wallet.currency} in ${debiting.length} payouts)${unchecked}`;
	}

	private durationLine(): string {
		if (this.resource !== 'payout') return 'Charges are not paced by the node: the run takes as long as its requests';
		const { limit, windowMs } = this.settings.velocity;
		if (this.settings.onVelocityLimit === 'fail') {
			return `On Velocity Limit is Fail: the node does not wait, and the Money API refuses the payouts past ${limit} within ${windowMs / 1000} s (the credential's velocity limit)`;
		}
		return `At the credential's velocity limit of ${limit} per ${windowMs / 1000} s the run takes at least ${durationText(this.clock.at)} of waiting, plus its requests`;
	}
}

/** "2500 XOF, 100 XAF": the rows' amounts summed per currency. */
function totalsOf(rows: PreviewedRow[]): string {
	const byCurrency = new Map<string, number>();
	for (const { body } of rows) byCurrency.set(String(body?.currency), (byCurrency.get(String(body?.currency)) ?? 0) + (body?.amount as number));
	return [...byCurrency].map(([currency, total]) => `${total} ${currency}`).join(', ');
}
