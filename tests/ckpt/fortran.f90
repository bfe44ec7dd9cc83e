! fortran: a gfortran program, relinked with condor_fc, writing a
! formatted file (unit 10, buffered by the Fortran runtime) and standard
! output across checkpoints.
program fortran
  implicit none
  integer :: i, j
  double precision :: x
  open(unit=10, file='table.out', status='replace')
  x = 1.0d0
  do i = 1, 400
     do j = 1, 3000000
        x = x * 1.0000001d0 + 1.0d-9
     end do
     write(10, '(I5,F24.6)') i, x
     if (mod(i, 50) == 0) print '(A,I4,F24.6)', 'row ', i, x
  end do
  close(10)
  print *, 'fortran done'
end program fortran
