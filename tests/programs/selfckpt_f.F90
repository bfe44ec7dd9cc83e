! selfckpt_f: selfckpt.c in Fortran: CALL CKPT_AND_EXIT() after steps 1
! to 3 and CALL CKPT() after step 2 (only when relinked: condor_fc
! defines CONDOR_RELINKED), printing after each.
program selfckpt_f
  implicit none
  integer :: step, i
  double precision :: x
  x = 1.0d0
  do step = 1, 4
     do i = 1, 3000000
        x = x * 1.0000001d0 + 1.0d-9
     end do
     print '(A,I2,A,F20.6)', 'step ', step, ': ', x
#ifdef CONDOR_RELINKED
     if (step == 2) call ckpt()
     if (step <= 3) call ckpt_and_exit()
#endif
     print '(A,I2)', 'after step ', step
  end do
  print '(A)', 'done'
end program selfckpt_f
