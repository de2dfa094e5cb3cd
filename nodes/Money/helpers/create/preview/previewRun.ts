import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { ROUTES } from '../../../../api/routes';
import type { TransactionResource } from '../../../../api/values';
import { moneyApiError } from '../../../../transport/errors';
import { type MoneyApiAnswer, moneyApiRequest } from '../../../../transport/request';
import type { OperationContext } from '../../../actions/node.type';
import { replaysLostRun } from '../refusals/lostRun';
import { hasRunAnchor } from '../request/idempotencyKey';
import { debitsWallet, walletFromAccount, type WalletBalance } from '../run/balanceCheck';
import { type CreateAttempt, CreateRun, createRunSettings, type CreateRunSettings } from '../run/createRun';
import { VelocityPacer, type VelocitySettings } from '../run/pacing';
import { durationText, summarise } from '../run/progress';

/**
 * Preview Only (docs/architecture.md, "Preview Only"): the create path's own steps run over every
 * row, nothing that moves money is sent, and the node's memory keeps only the lost-run verdict.
 *
 * The node's memory is its execution context (run anchor, lost-run verdict, run identity, what was
 * sent under each key): every step reads and writes it through `getContext('node')`. A preview
 * hands those steps a context whose node memory is a deep copy, so they decide exactly as in a
 * real run (a Retry's memory included) and what they record is dropped with the copy: a real run
 * after a preview, or a Retry of a preview's execution, finds the memory as if no preview ran, but
 * for the lost-run verdict (refusals/lostRun.ts), which Preview.start records in the real memory:
 * without it, a Retry of the preview's execution would read the node's earlier run with an empty
 * memory as a run lost in a crash and refuse every row without a Business Reference.
 */
function withScratchMemory(context: IExecuteFunctions): IExecuteFunctions {
	const scratch = structuredClone(context.getContext('node')) as ReturnType<IExecuteFunctions['getContext']>;
	return new Proxy(context, {
		get(target, property) {
			if (property === 'getContext') return (type: Parameters<IExecuteFunctions['getContext']>[0]) => (type === 'node' ? scratch : target.getContext(type));
			const value = Reflect.get(target, property, target) as unknown;
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
	});
}

/** The node's create run on a simulated clock: the same pacing, caps and balance check, no real wait, nothing said. */
class SimulatedRun extends CreateRun {
	constructor(
		settings: CreateRunSettings,
		operation: OperationContext,
		credential: Awaited<ReturnType<OperationContext['credential']>>,
		private readonly clock: { at: number },
	) {
		super(settings, { ...operation.callSettings(0), credential }, () => clock.at);
	}

	get elapsedMs(): number {
		return this.clock.at;
	}

	protected async pause(_context: IExecuteFunctions, waitMs: number): Promise<boolean> {
		this.clock.at += waitMs;
		return false;
	}

	protected say(): void {}
}

/**
 * What the Money API would answer a create of the preview: the refusals the run can foresee, from
 * the wallet balance read at the preview's start (INSUFFICIENT_FUNDS, spec: the balance is checked
 * before a payout is submitted) and the credential's velocity limit (LIMIT_EXCEEDED, counted on the
 * simulated clock), else an acceptance. The node's create run meets these answers as it meets the
 * API's: after INSUFFICIENT_FUNDS it sends no later payout of the wallet (run/caps.ts RunStops),
 * with On Velocity Limit Fail it fails the payout. A create made before under its key is answered
 * from the record and takes neither balance nor room in the window.
 */
class SimulatedApi {
	private available?: number;
	private readonly window: VelocityPacer;

	constructor(
		private readonly wallet: WalletBalance | undefined,
		velocity: VelocitySettings,
		private readonly clock: { at: number },
	) {
		this.available = wallet?.value;
		this.window = new VelocityPacer({ ...velocity });
	}

	answer(node: INode, attempt: CreateAttempt, madeBefore: boolean): MoneyApiAnswer {
		const accepted = { body: {}, headers: {}, unansweredAttempts: 0 };
		if (madeBefore || attempt.resource !== 'payout') return accepted;
		const { itemIndex, amount, currency } = attempt;
		if (this.window.delayBeforeNext(this.clock.at) > 0) {
			const { limit, windowMs } = this.window;
			const details = { limit: 'velocity_limit', velocity_limit: limit, velocity_window_seconds: windowMs / 1000, velocity_used: limit };
			throw moneyApiError(node, { httpCode: 403, errorCode: 'LIMIT_EXCEEDED', apiMessage: `more than ${limit} payouts in ${windowMs / 1000} seconds`, details }, itemIndex);
		}
		const debits = this.wallet !== undefined && this.available !== undefined && debitsWallet(attempt, this.wallet);
		if (debits && amount > (this.available ?? 0)) {
			const details = { available_balance: this.available ?? 0, currency, requested_amount: amount };
			throw moneyApiError(node, { httpCode: 402, errorCode: 'INSUFFICIENT_FUNDS', apiMessage: 'insufficient funds', details }, itemIndex);
		}
		if (debits) this.available = (this.available ?? 0) - amount;
		this.window.recordSend(this.clock.at);
		return accepted;
	}
}

interface PreviewedRow {
	itemIndex: number;
	wouldSend: boolean;
	/** False for a row this execution already had accepted: it comes back replayed and moves nothing; 'maybe' for one sent before without an answer. */
	moves: boolean | 'maybe';
	amount?: number;
	currency?: string;
	accountNumber?: string;
	/** After the item at which the real run stops (On Error: Stop Workflow). */
	notReached?: true;
}

export class Preview {
	readonly rows: PreviewedRow[] = [];
	/** The first refused item when On Error is Stop Workflow: the real run fails there and reaches no later row. */
	stopsAt?: number;

	private constructor(
		readonly context: IExecuteFunctions,
		readonly run: SimulatedRun,
		readonly api: SimulatedApi,
		readonly settings: CreateRunSettings,
		/** A default key (no Business Reference) is the real run's only when this execution's memory already holds its anchor (a Retry). */
		readonly defaultKeysKnown: boolean,
		/** The primary wallet at the start (payouts), or why it could not be read. */
		private readonly wallet: WalletBalance | string | undefined,
	) {}

	static async start(context: IExecuteFunctions, resource: TransactionResource, operation: OperationContext): Promise<Preview> {
		// In the real memory, before anything can fail: this run of the node sends nothing, so a Retry
		// of the preview's execution (a real run, or the loop's next batch) starts clean, as after any run that did not crash.
		replaysLostRun(context);
		const credential = await operation.credential();
		const options = context.getNodeParameter('options', 0, {}) as IDataObject;
		const settings = createRunSettings(resource, options, credential.data ?? {});
		const scratch = withScratchMemory(context);
		const wallet = resource === 'payout' ? await readWallet(scratch, operation, credential) : undefined;
		const clock = { at: 0 };
		const api = new SimulatedApi(typeof wallet === 'object' ? wallet : undefined, settings.velocity, clock);
		return new Preview(scratch, new SimulatedRun(settings, operation, credential, clock), api, settings, hasRunAnchor(context), wallet);
	}

	/** The run's totals and length above the output, once the last row is previewed. */
	summarise(context: IExecuteFunctions, resource: TransactionResource): void {
		const lines = [verdictLine(resource, this.rows, this.stopsAt), this.totalsLine(resource), this.durationLine(resource)];
		for (const line of lines) if (line) summarise(context, line);
	}

	private totalsLine(resource: TransactionResource): string {
		// The rows that may move money: a row sent before without an answer counts in the "up to" figures (and against the balance).
		const moving = this.rows.filter((row) => row.wouldSend && row.moves !== false);
		const unanswered = moving.filter((row) => row.moves === 'maybe').length;
		const upTo = unanswered > 0 ? ` (up to ${totalsOf(moving)} with the ${unanswered} sent before without an answer, which the Money API may already hold)` : '';
		const line = `Money ${resource} preview: the rows that would be sent total ${totalsOf(moving.filter((row) => row.moves === true)) || 'nothing'}${upTo}`;
		if (resource !== 'payout' || moving.length === 0) return line;
		const wallet = this.wallet;
		if (typeof wallet !== 'object') return `${line}; ${wallet ?? 'the account balance was not read'}`;
		const debiting = moving.filter((row) => debitsWallet({ amount: row.amount, currency: row.currency, accountNumber: row.accountNumber }, wallet));
		const total = debiting.reduce((sum, row) => sum + (row.amount ?? 0), 0);
		const verdict =
			total <= wallet.value ? `covers them` : `is short by ${total - wallet.value} ${wallet.currency}: the rows past the balance would fail with INSUFFICIENT_FUNDS`;
		const others = moving.length - debiting.length;
		const unchecked = others > 0 ? `; ${others} payouts from another wallet or currency are not checked (the account reports its primary wallet only)` : '';
		return `${line}; wallet ${wallet.number} has ${wallet.value} ${wallet.currency} available, which ${verdict} (${total} ${wallet.currency} in ${debiting.length} payouts)${unchecked}`;
	}

	private durationLine(resource: TransactionResource): string {
		if (resource !== 'payout') return 'Charges are not paced by the node: the run takes as long as its requests';
		const { limit, windowMs } = this.settings.velocity;
		const rule = `${limit} per ${windowMs / 1000} s`;
		if (this.settings.onVelocityLimit === 'fail') {
			return `On Velocity Limit is Fail: the node does not wait, and the Money API refuses the payouts past ${limit} within ${windowMs / 1000} s (the credential's velocity limit)`;
		}
		return `At the credential's velocity limit of ${rule} the run takes at least ${durationText(this.run.elapsedMs)} of waiting, plus its requests`;
	}
}

/** The account's primary wallet, read once at the preview's start, or why it could not be read. */
async function readWallet(context: IExecuteFunctions, operation: OperationContext, credential: Awaited<ReturnType<OperationContext['credential']>>): Promise<WalletBalance | string> {
	try {
		const { retry, timeoutMs } = operation.callSettings(0);
		const account = await moneyApiRequest.call(context, 'GET', ROUTES.account, { retry, timeoutMs, credential });
		return walletFromAccount(account as IDataObject) ?? 'the account answer carried no balance';
	} catch (error) {
		return `the account balance could not be read (${(error as Error).message})`;
	}
}

/** "2500 XOF, 100 XAF": the rows' amounts summed per currency. */
function totalsOf(rows: PreviewedRow[]): string {
	const byCurrency = new Map<string, number>();
	for (const row of rows) byCurrency.set(String(row.currency), (byCurrency.get(String(row.currency)) ?? 0) + (row.amount ?? 0));
	return [...byCurrency].map(([currency, total]) => `${total} ${currency}`).join(', ');
}

function verdictLine(resource: TransactionResource, rows: PreviewedRow[], stopsAt: number | undefined): string {
	const refused = rows.filter((row) => !row.wouldSend && !row.notReached).map((row) => row.itemIndex + 1);
	const notReached = rows.filter((row) => row.notReached).length;
	const stop = stopsAt !== undefined ? `; On Error is Stop Workflow: the run stops at item ${stopsAt + 1}${notReached > 0 ? ` and does not reach ${notReached === 1 ? 'the row' : `the ${notReached} rows`} after it` : ''}` : '';
	const listed = refused.length > 10 ? `${refused.slice(0, 10).join(', ')} and ${refused.length - 10} more` : refused.join(', ');
	const replayed = rows.filter((row) => row.wouldSend && row.moves === false).length;
	const again = replayed > 0 ? ` (${replayed} of them made before in this execution: answered from the API's record, they move nothing)` : '';
	const sent = rows.filter((row) => row.wouldSend).length;
	return `Money ${resource} preview, nothing was sent: ${sent} of ${rows.length} rows would be sent${again}, ${refused.length} refused${refused.length > 0 ? ` (${refused.length === 1 ? 'item' : 'items'} ${listed})` : ''}${stop}`;
}
