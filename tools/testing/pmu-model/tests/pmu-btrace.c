// SPDX-License-Identifier: GPL-2.0
/*
 * The program gdb traces with "record btrace bts" (pmu-bts-facts.sh):
 * main calls outer, which calls leaf three times; built with -g -O0 so
 * that gdb names each function and line.
 */
static volatile int sink;

static void __attribute__((noinline)) leaf(int i)
{
	sink += i;
}

static void __attribute__((noinline)) outer(void)
{
	int i;

	for (i = 0; i < 3; i++)
		leaf(i);
}

static void __attribute__((noinline)) done(void)
{
	sink = 0;
}

int main(void)
{
	outer();
	done();
	return 0;
}
