! fortran_alloc: allocatable arrays that grow (move_alloc), shrink and
! are given back, round after round, the kind of memory a Fortran
! program's runtime asks malloc for; prints integer checksums.
program fortran_alloc
  implicit none
  integer(8), allocatable :: a(:), b(:), m(:,:)
  integer(8) :: s, i, j, n
  integer :: round

  n = 100000
  allocate(a(n))
  do i = 1, n
    a(i) = mod(i * 2654435761_8, 1000003_8)
  end do
  do round = 1, 90
    ! Grow by half, keeping the contents.
    allocate(b(n + n / 2))
    b(1:n) = a
    do i = n + 1, n + n / 2
      b(i) = mod(b(i - n / 2) * 31_8 + round, 1000003_8)
    end do
    call move_alloc(b, a)
    n = n + n / 2
    if (n > 6000000_8) then
      ! Shrink back to a tenth.
      allocate(b(n / 10))
      b = a(1:n / 10)
      call move_alloc(b, a)
      n = n / 10
    end if
    allocate(m(300, 300 + round * 10))
    do j = 1, size(m, 2)
      do i = 1, 300
        m(i, j) = mod(a(mod(i * j + round, n) + 1) + i - j, 1000003_8)
      end do
    end do
    s = 0
    do i = 1, n
      s = mod(s * 7_8 + a(i), 1000000007_8)
    end do
    write (*, '(a, i3, a, i9, a, i11, a, i12)') 'round', round, &
      ' n', n, ' sum', s, ' m', sum(m)
    deallocate(m)
  end do
  deallocate(a)
end program fortran_alloc
