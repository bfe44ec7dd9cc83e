! remote_fortran.f90: a gfortran job for tests/pool/remote_libs_test.sh.
! Reads params.txt, writes a formatted table to table.txt (overwriting
! it), appends a summary, reads the table back and prints a checksum.
program remote_fortran
  implicit none
  integer :: n, i, ios, count
  real(8) :: x, y, s, total
  character(len=80) :: line

  open(unit=10, file='params.txt', status='old', action='read', iostat=ios)
  if (ios /= 0) then
    print '(a,i0)', 'cannot open params.txt: iostat ', ios
    stop 1
  end if
  read(10, *) n
  close(10)

  open(unit=11, file='table.txt', status='replace', action='write', &
       form='formatted')
  write(11, '(a)') '     i            x              sin(x)          x**2'
  s = 0d0
  do i = 1, n
    x = dble(i) / 10d0
    y = sin(x)
    s = s + y
    write(11, '(i6, 3es16.7)') i, x, y, x * x
  end do
  close(11)

  open(unit=11, file='table.txt', position='append', action='write')
  write(11, '(a, f20.10)') 'sum of sin(x): ', s
  close(11)

  open(unit=12, file='table.txt', status='old', action='read')
  read(12, '(a)') line
  count = 0
  total = 0d0
  do
    read(12, '(a)', iostat=ios) line
    if (ios /= 0) exit
    if (line(1:3) == 'sum') exit
    read(line, *) i, x, y
    total = total + y
    count = count + 1
  end do
  close(12)
  print '(a, i0)', 'rows read back: ', count
  print '(a, f20.10)', 'sum read back:  ', total
  inquire(file='table.txt', size=i)
  print '(a, i0)', 'table.txt size: ', i
  print '(a)', 'done'
end program remote_fortran
