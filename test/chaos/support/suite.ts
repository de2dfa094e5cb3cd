import type { Sandbox } from '../../../sandbox';
import { SecretCapture } from './capture';
import { fixedSecrets, startChaosSandbox } from './money';
import { ChaosReport } from './report';

/**
 * What the scenarios of one chaos test file share: one report, written after the last test, and
 * one secret capture over every run, scanned against the secrets of the sandbox in use.
 */
export function chaosFile(title: string): { report: ChaosReport; capture: SecretCapture; startSandbox(seed: number): Promise<Sandbox> } {
	const report = new ChaosReport(title);
	let current: Sandbox | undefined;
	const capture = new SecretCapture(() => {
		if (!current) throw new Error('no sandbox');
		return fixedSecrets(current);
	});
	beforeAll(() => capture.start());
	afterAll(() => {
		capture.stop();
		report.write();
	});
	return {
		report,
		capture,
		async startSandbox(seed: number) {
			current = await startChaosSandbox(seed);
			return current;
		},
	};
}
