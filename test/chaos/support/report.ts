/**
 * Figures per scenario, written straight to stdout at the end of a file (jest keeps console.log
 * of passing tests to itself), so a reader of the CI log sees the counts, not only a pass.
 */
export type Figures = Record<string, number | string>;

export class ChaosReport {
	private readonly rows: Array<{ scenario: string; figures: Figures }> = [];
	private readonly started = Date.now();

	constructor(private readonly suite: string) {}

	add(scenario: string, figures: Figures): void {
		this.rows.push({ scenario, figures });
	}

	render(): string {
		const lines = [`\n[chaos] ${this.suite} (${((Date.now() - this.started) / 1000).toFixed(1)} s)`];
		for (const { scenario, figures } of this.rows) {
			const parts = Object.entries(figures).map(([name, value]) => `${name}=${value}`);
			lines.push(`[chaos]   ${scenario}: ${parts.join(' ')}`);
		}
		return `${lines.join('\n')}\n`;
	}

	write(): void {
		process.stdout.write(this.render());
	}
}
