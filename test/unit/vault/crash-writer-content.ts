/** The text of write number n: sizes spread over every padding bucket. */
export const contentOf = (n: number): string => `entry ${n}\n` + 'abcdefghij'.repeat([0, 3, 50, 500, 9000][n % 5]!);
