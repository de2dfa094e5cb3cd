import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ROUTES } from '../../../../api/routes';
import { moneyApiRequest } from '../../../../transport/request';
import { type CallSettings } from '../../../actions/node.type';
import { readBusinessReference } from '../input';
import { idempotencyKeyOf } from '../request/idempotencyKey';
import { SentCreates } from '../request/sentCreates';

interface PlannedPayout {
	amount: unknown;
	currency: unknown;
	accountNumber?: unknown;
}

export interface WalletBalance {
	number: string;
	value: number;
	currency: string;
}

interface Overdraft {
	currency: string;
	total: number;
	balance: number;
	shortfall: number;
	wallet: string;
	items: number;
}

/** Whether a payout debits this wallet: in its currency, with no Account Number or the wallet's own. */
export function debitsWallet(payout: PlannedPayout, wallet: WalletBalance): boolean {
	if (payout.currency !== wallet.currency) return false;
	const account = typeof payout.accountNumber === 'string' ? payout.accountNumber.trim() : '';
	return account === '' || account === wallet.number;
}

/**
 * The account route reports the primary wallet only, so the run is totalled over the payouts that
 * debit it: in its currency, with no Account Number or that wallet's number. Invalid amounts are
 * left out (validation refuses those items before any request).
 */
export function findOverdraft(planned: PlannedPayout[], wallet: WalletBalance): Overdraft | undefined {
	let total = 0;
	let items = 0;
	for (const payout of planned) {
		if (!debitsWallet(payout, wallet)) continue;
		const amount = typeof payout.amount === 'string' && payout.amount.trim() !== '' ? Number(payout.amount) : payout.amount;
		if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) continue;
		total += amount;
		items++;
	}
	if (total <= wallet.value) return undefined;
	return { currency: wallet.currency, total, balance: wallet.value, shortfall: total - wallet.value, wallet: wallet.number, items };
}

export function walletFromAccount(account: IDataObject): WalletBalance | undefined {
	const wallet = account.account as IDataObject | undefined;
	const balance = wallet?.balance as IDataObject | undefined;
	if (typeof balance?.value !== 'number' || typeof balance.currency !== 'string') return undefined;
	return { number: String(wallet?.number ?? ''), value: balance.value, currency: balance.currency };
}

/** Builds, for each item of a refused run, its own error (n8n sets the item index on the instance). */
export type RunRefusal = (itemIndex: number) => NodeOperationError;

function refusal(
	context: IExecuteFunctions,
	message: string,
	description: string,
	details?: IDataObject,
): RunRefusal {
	return (itemIndex) => {
		const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
		Object.assign(error.context, { attempted: false, error_code: details ? 'RUN_EXCEEDS_BALANCE' : null });
		if (details) error.context.details = details;
		return error;
	};
}

function overdraftRefusal(context: IExecuteFunctions, overdraft: Overdraft, alreadyPaid = 0): RunRefusal {
	const { currency, total, balance, shortfall, wallet, items } = overdraft;
	const notCounted = alreadyPaid > 0 ? ` (${alreadyPaid} rows this execution already paid are not counted)` : '';
	return refusal(
		context,
		`Payout run refused, nothing was sent: ${items} payouts total ${total} ${currency}, the wallet ${wallet} has ${balance} ${currency} available, short by ${shortfall} ${currency}${notCounted}`,
		'Check Balance First compares what the run can still pay out with the wallet balance before any payout. It counts every row of this execution except those it already paid (a Retry of the execution knows them); in a new execution it also counts the rows whose Business Reference was paid before, though they come back replayed and move nothing. Top up the wallet, remove rows from the run, Retry the execution that stopped part-way (only the rows left to pay are counted), or turn off Check Balance First for this run.',
		{ currency, total, available_balance: balance, shortfall, account_number: wallet, already_paid: alreadyPaid },
	);
}

function parameterOrUndefined(context: IExecuteFunctions, name: string, itemIndex: number): unknown {
	try {
		return context.getNodeParameter(name, itemIndex, undefined);
	} catch {
		return undefined;
	}
}

/**
 * True when this execution's node already had the row's payout accepted (a Retry of the execution
 * carries that memory): it comes back replayed and moves no money, so the balance need not cover it.
 */
function acceptedBefore(context: IExecuteFunctions, sentCreates: SentCreates, itemIndex: number): boolean {
	try {
		return sentCreates.isAccepted(idempotencyKeyOf(context, 'payout', readBusinessReference.call(context, itemIndex), itemIndex));
	} catch {
		return false; // the row fails on its own before any request
	}
}

/**
 * Reads every input item's amount, currency and account number (leaving out the rows this
 * execution already paid), then the account's balance.
 * Undefined when the run fits; otherwise the refusal every item of the run gets, nothing sent.
 */
export async function checkRunBalance(
	this: IExecuteFunctions,
	settings: CallSettings,
): Promise<RunRefusal | undefined> {
	const sentCreates = SentCreates.of(this);
	const planned: PlannedPayout[] = [];
	let alreadyPaid = 0;
	for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
		if (!sentCreates.isEmpty && acceptedBefore(this, sentCreates, itemIndex)) {
			alreadyPaid++;
			continue;
		}
		planned.push({
			amount: parameterOrUndefined(this, 'amount', itemIndex),
			currency: parameterOrUndefined(this, 'currency', itemIndex),
			accountNumber: (parameterOrUndefined(this, 'additionalFields', itemIndex) as IDataObject | undefined)?.accountNumber,
		});
	}
	let account: IDataObject;
	try {
		account = await moneyApiRequest.call(this, 'GET', ROUTES.account, { retry: settings.retry, timeoutMs: settings.timeoutMs, credential: settings.credential });
	} catch (error) {
		return refusal(
			this,
			`Check Balance First could not read the account, nothing was sent: ${(error as Error).message}`,
			'Fix what the account read reports (the client needs the get_money_v1_account entitlement), or turn off Check Balance First.',
		);
	}
	const wallet = walletFromAccount(account);
	if (!wallet) {
		return refusal(
			this,
			'Check Balance First could not read the wallet balance from the Money API account, nothing was sent',
			'The account answer carried no account.balance. Turn off Check Balance First to pay without the check.',
		);
	}
	const others = planned.filter((payout) => payout.currency !== wallet.currency).length;
	if (others > 0) {
		this.logger.info(`Money: Check Balance First covers ${wallet.currency} payouts from wallet ${wallet.number} only; ${others} payouts in another currency are not checked`);
	}
	const overdraft = findOverdraft(planned, wallet);
	return overdraft ? overdraftRefusal(this, overdraft, alreadyPaid) : undefined;
}
