#!/usr/bin/env bash
# tests/pool/classad_semantics_test.sh: the ClassAd language as HTCondor
# means it.  Our evaluator (obj/tests/classad_eval) must give HTCondor's
# value for every expression of tests/classad/semantics.tab, one check
# per operator or function, and the reference model's value for
# generated expressions; see tests/classad/classad_test.sh.  Skipped
# while the evaluator driver is not built.
#
# checks: >=100
exec bash "$(dirname "$0")/../classad/classad_test.sh"
