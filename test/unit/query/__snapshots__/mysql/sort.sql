select `x2`.`c0`
from (
  select `t1`.`id` as `c0`, `t1`.`views` as `s0`, (
    select `t3`.`name`
    from `authors` as `t3`
    where `t3`.`id` = `t1`.`author`) as `s1`, year(`t1`.`published`) as `s2`
  from `articles` as `t1`) as `x2`
order by `x2`.`s0` is null desc, `x2`.`s0` desc, `x2`.`s1` is null, `x2`.`s1`, `x2`.`s2` is null, `x2`.`s2`
limit ?
-- values: [100]
