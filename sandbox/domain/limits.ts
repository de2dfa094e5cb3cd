import { ApiError } from '../http/errors';
import type { ClientState } from './clients';
import type { TransactionStore } from './store';
import type { Currency } from './types';

const NOT_COUNTED = new Set(['FAILED', 'CANCELLED', 'REVERSED']);

function startOfUtcDay(ms: number): number {
	const date = new Date(ms);
	return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

function startOfUtcMonth(ms: number): number {
	const date = new Date(ms);
	return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function payoutTotalsSince(client: ClientState, store: TransactionStore, currency: Currency, dayStart: number, monthStart: number) {
	const payouts = store.all(client.clientId, 'payout');
	let daily = 0;
	let monthly = 0;
	for (let index = payouts.length - 1; index >= 0; index--) {
		const payout = payouts[index];
		if (payout.createdAt < monthStart) break;
		if (payout.currency !== currency || NOT_COUNTED.has(payout.status)) continue;
		monthly += payout.amount;
		if (payout.createdAt >= dayStart) daily += payout.amount;
	}
	return { daily, monthly };
}

/** Pre-submission payout limits (spec 4 rule 2, section 8); the velocity window is rolling. */
export function assertPayoutWithinLimits(client: ClientState, store: TransactionStore, amount: number, currency: Currency, nowMs: number): void {
	const limits = client.settings.limits;
	const windowMs = limits.velocityWindowSeconds * 1000;
	const recent = client.recentPayoutTimes;
	while (recent.length > 0 && recent[0] <= nowMs - windowMs) recent.shift();
	const totals = payoutTotalsSince(client, store, currency, startOfUtcDay(nowMs), startOfUtcMonth(nowMs));
	const details = {
		min_amount: limits.minAmount,
		max_amount: limits.maxAmount,
		daily_cap: limits.dailyCap,
		monthly_cap: limits.monthlyCap,
		velocity_limit: limits.velocityLimit,
		velocity_window_seconds: limits.velocityWindowSeconds,
		daily_used: totals.daily,
		monthly_used: totals.monthly,
		velocity_used: recent.length,
		currency,
	};
	const breach = (limit: string, message: string, extra: Record<string, unknown> = {}) =>
		new ApiError(403, 'LIMIT_EXCEEDED', message, { limit, ...details, ...extra });

	if (amount < limits.minAmount) throw breach('min_amount', `amount is below the payout minimum of ${limits.minAmount}`);
	if (amount > limits.maxAmount) throw breach('max_amount', `amount is above the payout maximum of ${limits.maxAmount}`);
	if (recent.length >= limits.velocityLimit) {
		const retryAfter = Math.max(1, Math.ceil((recent[0] + windowMs - nowMs) / 1000));
		throw breach('velocity_limit', `more than ${limits.velocityLimit} payouts in ${limits.velocityWindowSeconds} seconds`, {
			retry_after_seconds: retryAfter,
		});
	}
	if (totals.daily + amount > limits.dailyCap) throw breach('daily_cap', `payout would exceed the daily cap of ${limits.dailyCap}`);
	if (totals.monthly + amount > limits.monthlyCap) throw breach('monthly_cap', `payout would exceed the monthly cap of ${limits.monthlyCap}`);
}

export function recordPayoutForVelocity(client: ClientState, nowMs: number): void {
	client.recentPayoutTimes.push(nowMs);
}
